import { labelImagesAggregate } from '../domain/label-images/decider.ts';
import { LABEL_IMAGE_NAME, labelImagesStream } from '../domain/label-images/events.ts';
import { IMAGE_TYPES, MAX_IMAGE_BYTES } from '../domain/project/design.ts';
import { DomainError, fold } from '../domain/shared/decider.ts';
import type { EventMetadata, EventStore } from '../eventstore/port.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { imageFailure } from './image-failure.ts';
import { storeImage } from './images.ts';

/**
 * A checked image is placed at this size when it is an SVG (drawn as a 50 mm square to check it).
 */
const CHECK_SIZE_MM = 50;

const invalid = (message: string, field = 'name') =>
  new DomainError('invalid', message, 'invalid_image', { field });

/**
 * Stores an image under a name of the label (POST /api/images?name=): checked as
 * design images are (its bytes are the type it says, it decodes whole, in an image
 * process), kept in the content-addressed image store, named by an event.
 */
export async function storeLabelImage(
  ctx: AppContext,
  labelId: string,
  name: string,
  type: string,
  bytes: Buffer,
  metadata: EventMetadata,
) {
  if (!LABEL_IMAGE_NAME.test(name))
    throw invalid(
      'name: a letter or digit, then letters, digits, _ . - (at most 128), e.g. logo or anna-photo',
    );
  if (!(IMAGE_TYPES as readonly string[]).includes(type))
    throw invalid(`a PNG, JPEG, WebP or SVG image (got ${type || 'no type'})`, 'body');
  if (bytes.length === 0) throw invalid('send the image as the body', 'body');
  if (bytes.length > MAX_IMAGE_BYTES) throw invalid('an image is at most 10 MB', 'body');
  try {
    await ctx.imageChecks.check(labelId, {
      type,
      bytes,
      widthMm: CHECK_SIZE_MM,
      heightMm: CHECK_SIZE_MM,
    });
  } catch (err) {
    throw imageFailure(err, 'body', `image ${name}`, 'invalid_image');
  }
  const sha256 = await storeImage(ctx.images, bytes);
  await handleCommand(
    ctx.store,
    labelImagesAggregate,
    labelImagesStream(labelId),
    {
      type: 'StoreLabelImage',
      labelId,
      name,
      image: { type, sha256, bytes: bytes.length },
      maximum: ctx.maximums.images,
      at: new Date(),
    },
    { ...metadata, labelId },
  );
  return { name, sha256 };
}

/** The label's images, by name. */
export async function labelImages(ctx: AppContext, labelId: string) {
  const state = await loadState(ctx.store, labelImagesAggregate, labelImagesStream(labelId));
  return Object.entries(state.images)
    .map(([name, i]) => ({
      name,
      type: i.type,
      sha256: i.sha256,
      bytes: i.bytes,
      storedAt: i.storedAt,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Takes a name off the label's images: no new data set may name it. Its bytes stay in the
 * image store, as every image an order may need to render again does.
 */
export async function removeLabelImage(
  ctx: AppContext,
  labelId: string,
  name: string,
  metadata: EventMetadata,
): Promise<void> {
  await handleCommand(
    ctx.store,
    labelImagesAggregate,
    labelImagesStream(labelId),
    { type: 'RemoveLabelImage', labelId, name, at: new Date() },
    { ...metadata, labelId },
  );
}

/** The label's images now, and how many events named them (a sale records this count). */
export async function labelImagesNow(store: EventStore, labelId: string) {
  const stored = await store.readStream(labelImagesStream(labelId));
  const events = stored.map((e) => labelImagesAggregate.events.deserialize(e));
  return { at: stored.length, state: fold(labelImagesAggregate.decider, events) };
}

/** The label's images as they were after its first `at` image events (as a sale saw them). */
export async function labelImagesAt(store: EventStore, labelId: string, at: number) {
  const stored = (await store.readStream(labelImagesStream(labelId))).slice(0, at);
  return fold(
    labelImagesAggregate.decider,
    stored.map((e) => labelImagesAggregate.events.deserialize(e)),
  );
}
