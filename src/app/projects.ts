import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import sharp, { type Metadata } from 'sharp';
import { findOffering } from '../../projections/offerings.ts';
import { cartItemDecider } from '../domain/cart/decider.ts';
import { cartItemEvents, cartItemStream } from '../domain/cart/events.ts';
import { type ProjectContent, projectDecider } from '../domain/project/decider.ts';
import { layerBox, MAX_IMAGE_BYTES, parseDataUrl } from '../domain/project/design.ts';
import { projectEvents, projectStream } from '../domain/project/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { AppendResult, EventMetadata, EventStore } from '../eventstore/port.ts';
import { LIMIT_PIXELS, prepareImage } from '../print/images.ts';
import type { FileStorage } from '../storage/port.ts';
import { handleCommand, loadState } from './command-handler.ts';
import { storeDesignImages } from './images.ts';

const invalid = (path: string, message: string) =>
  new DomainError('invalid', `${path}: ${message}`, 'invalid_design');

/**
 * Checks a design against its product configuration: the product is offered, every
 * area is one of its print areas (once), no layer lies wholly outside its area, and
 * every image decodes (sharp reads it) within the size limit.
 */
export async function validateDesign(pool: pg.Pool, content: ProjectContent): Promise<void> {
  const offering = await findOffering(pool, content.supplier, content.sku);
  if (!offering || offering.renamed_to !== null || !offering.config.published) {
    throw new DomainError(
      'invalid',
      `no product configuration ${content.sku} for ${content.supplier}`,
      'unknown_sku',
    );
  }
  const areas = new Map(offering.config.printAreas.map((a) => [a.code, a]));
  const seen = new Set<string>();
  for (const [ai, area] of content.design.areas.entries()) {
    const spec = areas.get(area.printArea);
    const at = `design.areas.${ai}`;
    if (!spec) {
      throw invalid(
        `${at}.printArea`,
        `${area.printArea} is not a print area of ${content.sku} (${[...areas.keys()].join(', ') || 'none'})`,
      );
    }
    if (seen.has(area.printArea))
      throw invalid(`${at}.printArea`, `${area.printArea} appears twice`);
    seen.add(area.printArea);
    for (const [li, layer] of area.layers.entries()) {
      const box = layerBox(layer);
      if (
        box.x >= spec.widthMm ||
        box.y >= spec.heightMm ||
        box.x + box.width <= 0 ||
        box.y + box.height <= 0
      ) {
        throw invalid(`${at}.layers.${li}`, 'the layer lies wholly outside its print area');
      }
      if (layer.type === 'image') await validateImage(layer, `${at}.layers.${li}.src`);
    }
  }
}

async function validateImage(
  layer: { src: string; width: number; height: number },
  path: string,
): Promise<void> {
  const parsed = parseDataUrl(layer.src);
  if (!parsed) throw invalid(path, 'not a base64 data URL of a supported image');
  if (parsed.bytes.length > MAX_IMAGE_BYTES) throw invalid(path, 'the image is larger than 10 MB');
  const format = {
    'image/png': 'png',
    'image/jpeg': 'jpeg',
    'image/webp': 'webp',
    'image/svg+xml': 'svg',
  }[parsed.type];
  let meta: Metadata;
  try {
    meta = await sharp(parsed.bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw invalid(path, `the image cannot be decoded (${(err as Error).message.split('\n')[0]})`);
  }
  if (meta.format !== format)
    throw invalid(
      path,
      `the image cannot be decoded as the ${format} its data URL declares (it is ${meta.format})`,
    );
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  if (format !== 'svg' && pixels > LIMIT_PIXELS) {
    throw invalid(
      path,
      `the image has ${Math.round(pixels / 1e6)} megapixels; at most ${LIMIT_PIXELS / 1e6} can be printed`,
    );
  }
  try {
    if (format === 'svg') {
      // rasterised as the print file will be, at its placed size
      await prepareImage(parsed, layer.width, layer.height, path);
    } else {
      // decode it whole: a truncated file passes metadata() but not this
      await sharp(parsed.bytes, { limitInputPixels: LIMIT_PIXELS })
        .resize(8, 8, { fit: 'inside' })
        .toBuffer();
    }
  } catch (err) {
    const message = (err as Error).message.split('\n')[0]!.replace(/^design\.\S+: /, '');
    throw invalid(
      path,
      message.startsWith('the image') ? message : `the image cannot be decoded (${message})`,
    );
  }
}

export async function createProject(
  store: EventStore,
  pool: pg.Pool,
  images: FileStorage,
  session: { labelId: string; userRef: string },
  content: ProjectContent,
  metadata: EventMetadata,
): Promise<{ projectId: string; appended: AppendResult }> {
  await validateDesign(pool, content);
  const stored = { ...content, design: await storeDesignImages(images, content.design) };
  const projectId = randomUUID();
  const r = await handleCommand(
    store,
    projectEvents,
    projectDecider,
    projectStream(projectId),
    {
      type: 'CreateProject',
      projectId,
      ...session,
      content: stored,
      at: new Date(),
    },
    metadata,
  );
  return { projectId, appended: r.appended! };
}

export async function updateProject(
  store: EventStore,
  pool: pg.Pool,
  images: FileStorage,
  session: { labelId: string; userRef: string },
  projectId: string,
  content: ProjectContent,
  metadata: EventMetadata,
): Promise<AppendResult> {
  const current = await loadState(store, projectEvents, projectDecider, projectStream(projectId));
  if (
    current.status !== 'active' ||
    current.labelId !== session.labelId ||
    current.userRef !== session.userRef
  ) {
    throw new DomainError('not_found', 'project not found', 'project_not_found');
  }
  await validateDesign(pool, content);
  const stored = { ...content, design: await storeDesignImages(images, content.design) };
  const r = await handleCommand(
    store,
    projectEvents,
    projectDecider,
    projectStream(projectId),
    {
      type: 'UpdateProject',
      ...session,
      content: stored,
      at: new Date(),
    },
    metadata,
  );
  return r.appended!;
}

export async function deleteProject(
  store: EventStore,
  labelId: string,
  projectId: string,
  metadata: EventMetadata,
) {
  const r = await handleCommand(
    store,
    projectEvents,
    projectDecider,
    projectStream(projectId),
    {
      type: 'DeleteProject',
      labelId,
      at: new Date(),
    },
    metadata,
  );
  return r.appended!;
}

/** A saved project of this user into the cart; someone else's project is unknown (400). */
export async function addCartItem(
  store: EventStore,
  session: { labelId: string; userRef: string },
  input: { projectId: string; quantity: number },
  metadata: EventMetadata,
): Promise<{ cartItemId: string; appended: AppendResult }> {
  const project = await loadState(
    store,
    projectEvents,
    projectDecider,
    projectStream(input.projectId),
  );
  if (
    project.status !== 'active' ||
    project.labelId !== session.labelId ||
    project.userRef !== session.userRef
  ) {
    throw new DomainError('invalid', `unknown project ${input.projectId}`, 'unknown_project');
  }
  const cartItemId = randomUUID();
  const r = await handleCommand(
    store,
    cartItemEvents,
    cartItemDecider,
    cartItemStream(cartItemId),
    {
      type: 'AddCartItem',
      cartItemId,
      ...session,
      ...input,
      at: new Date(),
    },
    metadata,
  );
  return { cartItemId, appended: r.appended! };
}

export async function removeCartItem(
  store: EventStore,
  labelId: string,
  cartItemId: string,
  metadata: EventMetadata,
) {
  const r = await handleCommand(
    store,
    cartItemEvents,
    cartItemDecider,
    cartItemStream(cartItemId),
    {
      type: 'RemoveCartItem',
      labelId,
      at: new Date(),
    },
    metadata,
  );
  return r.appended!;
}
