import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import { refuseOverMaximum } from '../shared/maximums.ts';
import { type LabelImageEvent, labelImageEvents, labelImagesStream } from './events.ts';

export interface NamedImage {
  type: string;
  sha256: string;
  bytes: number;
  storedAt: string;
}

export type LabelImageCommand =
  | {
      type: 'StoreLabelImage';
      labelId: string;
      name: string;
      image: Omit<NamedImage, 'storedAt'>;
      /** the deployment's maximum of named images (LABEL_MAXIMUMS.images otherwise) */
      maximum?: number;
      at: Date;
    }
  | { type: 'RemoveLabelImage'; labelId: string; name: string; at: Date };

/** The label's images by name (a plain object: names are the label's own words). */
export type LabelImagesState = { images: Record<string, NamedImage> };

/**
 * The image of a name, looked up among the state's own entries only ("constructor" is a name too).
 */
export const imageNamed = (state: LabelImagesState, name: string): NamedImage | undefined =>
  Object.hasOwn(state.images, name) ? state.images[name] : undefined;

function storeLabelImage(
  c: Extract<LabelImageCommand, { type: 'StoreLabelImage' }>,
  state: LabelImagesState,
): LabelImageEvent[] {
  const now = imageNamed(state, c.name);
  // the same bytes under the same name: nothing changes
  if (now && now.sha256 === c.image.sha256) return [];
  // a new name is one more image; a name given again replaces its image
  if (!now) refuseOverMaximum('images', Object.keys(state.images).length, 1, c.maximum);
  return [
    {
      type: 'LabelImageStored',
      data: { labelId: c.labelId, name: c.name, ...c.image, storedAt: c.at.toISOString() },
    },
  ];
}

function removeLabelImage(
  c: Extract<LabelImageCommand, { type: 'RemoveLabelImage' }>,
  state: LabelImagesState,
): LabelImageEvent[] {
  if (!imageNamed(state, c.name))
    throw new DomainError('not_found', `no image named ${c.name}`, 'image_not_found');
  return [
    {
      type: 'LabelImageRemoved',
      data: { labelId: c.labelId, name: c.name, removedAt: c.at.toISOString() },
    },
  ];
}

export const labelImagesDecider: Decider<LabelImageCommand, LabelImageEvent, LabelImagesState> = {
  initialState: { images: {} },
  decide(command, state) {
    switch (command.type) {
      case 'StoreLabelImage':
        return storeLabelImage(command, state);
      case 'RemoveLabelImage':
        return removeLabelImage(command, state);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'LabelImageStored': {
        const { name, type, sha256, bytes, storedAt } = event.data;
        return { images: { ...state.images, [name]: { type, sha256, bytes, storedAt } } };
      }
      case 'LabelImageRemoved': {
        const { [event.data.name]: _gone, ...rest } = state.images;
        return { images: rest };
      }
    }
  },
};

export const labelImagesAggregate: Aggregate<
  LabelImageCommand,
  LabelImageEvent,
  LabelImagesState,
  Parameters<typeof labelImagesStream>
> = { events: labelImageEvents, decider: labelImagesDecider, stream: labelImagesStream };
