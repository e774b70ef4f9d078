import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

/**
 * The images a label keeps by name, for data set rows to name (`{{photo}}` in a design):
 * the bytes live in the content-addressed image store; the name points at them. A sale
 * records how far this stream had come, so its records are drawn with the images as they
 * were named then, whatever is stored under those names later.
 */
export const LABEL_IMAGE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export const LabelImageStored = defineEvent(
  'LabelImageStored',
  1,
  z.object({
    labelId: z.uuid(),
    name: z.string(),
    type: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: z.number().int(),
    storedAt: z.iso.datetime(),
  }),
);
export const LabelImageRemoved = defineEvent(
  'LabelImageRemoved',
  1,
  z.object({ labelId: z.uuid(), name: z.string(), removedAt: z.iso.datetime() }),
);

export type LabelImageEvent = EventOf<typeof LabelImageStored> | EventOf<typeof LabelImageRemoved>;
export const labelImageEvents = new EventRegistry<LabelImageEvent>([
  LabelImageStored,
  LabelImageRemoved,
]);
export const labelImagesStream = (labelId: string) => `LabelImages-${labelId}`;
