import {
  findTemplate,
  listTemplates,
  type TemplateRow,
  templateCountBesides,
} from '#projections/mockups';
import { configurationsMatching } from '#projections/offerings';
import { mockupTemplateAggregate } from '../domain/mockup-template/decider.ts';
import {
  mockupTemplateStream,
  type TemplateContent,
  type TemplateMatch,
} from '../domain/mockup-template/events.ts';
import { MAX_IMAGE_BYTES, parseDataUrl } from '../domain/project/design.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { type Quad, quadProblem } from '../mockup/quad.ts';
import { handleCommand } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { imageFailure } from './image-failure.ts';
import { storeImage } from './images.ts';
import { addingTo } from './label-collections.ts';

/** A template as an admin sends it: the photo and masks inline as data URLs. */
export interface TemplateInput {
  match: TemplateMatch;
  photo: string;
  areas: {
    printArea: string;
    /** four [x, y] pairs (the schema holds the lengths) */
    corners: number[][];
    blend: 'multiply' | 'normal';
    mask?: string | undefined;
  }[];
}

/**
 * The largest photo a template takes, pixels: a mockup is at most 3,000 px wide, and a
 * photo is decoded whole for each size asked for (a 100 MP one would take 300 MB).
 */
export const MAX_PHOTO_PIXELS = 40_000_000;

const invalid = (field: string, message: string) =>
  new DomainError('invalid', message, 'invalid_template', { field });

/** A PNG or JPEG data URL, decodable whole, within the limits; its size. */
async function checkedImage(
  ctx: AppContext,
  owner: string,
  src: string,
  field: string,
  name: string,
  types: string[],
) {
  const parsed = parseDataUrl(src);
  if (!parsed || !types.includes(parsed.type))
    throw invalid(
      field,
      `${name}: not a base64 data URL of a ${types.map((t) => t.slice(6).toUpperCase()).join(' or ')} image`,
    );
  if (parsed.bytes.length > MAX_IMAGE_BYTES)
    throw invalid(field, `${name}: the image is larger than 10 MB`);
  // the header first (cheap): a photo too large is refused before anything decodes it
  const meta = await ctx.imageChecks.size(owner, parsed.bytes);
  const width = meta?.width ?? 0;
  const height = meta?.height ?? 0;
  if (width * height > MAX_PHOTO_PIXELS)
    throw invalid(
      field,
      `${name}: the image has ${Math.round((width * height) / 1e6)} megapixels; a template takes at most ${MAX_PHOTO_PIXELS / 1e6}`,
    );
  try {
    await ctx.imageChecks.check(owner, {
      type: parsed.type,
      bytes: parsed.bytes,
      widthMm: 1,
      heightMm: 1,
    });
  } catch (err) {
    throw imageFailure(err, field, name, 'invalid_template');
  }
  return { ...parsed, width, height };
}

/**
 * Checks a template and records it (a new revision when it changed): the match names
 * product configurations, each area is a print area of every one of them, the corners
 * lie on the photo and form a convex quad clockwise from the top-left, the photo is a
 * PNG or JPEG of at most MAX_PHOTO_PIXELS, a mask is a PNG of the photo's size. The
 * images go into the image store; the event keeps their sha256.
 */
/**
 * Sets a mockup template (new, or replacing the one of that id); a new one counts against the
 * label's maximum.
 */
export function putTemplate(
  ctx: AppContext,
  labelId: string,
  templateId: string,
  input: TemplateInput,
  metadata: EventMetadata,
): Promise<TemplateRow> {
  return addingTo(
    ctx.maximums,
    labelId,
    'mockupTemplates',
    () => templateCountBesides(ctx.pool, labelId, templateId),
    () => putTemplateNow(ctx, labelId, templateId, input, metadata),
  );
}

async function putTemplateNow(
  ctx: AppContext,
  labelId: string,
  templateId: string,
  input: TemplateInput,
  metadata: EventMetadata,
): Promise<TemplateRow> {
  const configurations = await configurationsMatching(ctx.pool, input.match);
  if (configurations.length === 0)
    throw invalid(
      'sku' in input.match ? 'match.sku' : 'match.baseSKU',
      'sku' in input.match
        ? `no product configuration has the SKU ${input.match.sku}`
        : `no product configuration has the base SKU ${input.match.baseSKU}${input.match.productColor ? ` in ${input.match.productColor}` : ''}`,
    );
  for (const [i, area] of input.areas.entries()) {
    const lacking = configurations.filter((c) => !c.printAreas.includes(area.printArea));
    if (lacking.length > 0)
      throw invalid(
        `areas.${i}.printArea`,
        `area ${i + 1}: ${area.printArea} is not a print area of ${lacking
          .slice(0, 5)
          .map((c) => `${c.sku} (${c.printAreas.join(', ') || 'none'})`)
          .join(', ')}`,
      );
  }
  const owner = `label:${labelId}`;
  const photo = await checkedImage(ctx, owner, input.photo, 'photo', 'the photo', [
    'image/png',
    'image/jpeg',
  ]);
  const quads = input.areas.map((a) => a.corners.map(([x, y]) => [x!, y!]) as Quad);
  for (const [i, quad] of quads.entries()) {
    const problem = quadProblem(quad, photo.width, photo.height);
    if (problem) throw invalid(`areas.${i}.corners`, `area ${i + 1}: ${problem}`);
  }
  const masks = [];
  for (const [i, area] of input.areas.entries()) {
    if (area.mask === undefined) {
      masks.push(undefined);
      continue;
    }
    const field = `areas.${i}.mask`;
    const mask = await checkedImage(ctx, owner, area.mask, field, `area ${i + 1}'s mask`, [
      'image/png',
    ]);
    if (mask.width !== photo.width || mask.height !== photo.height)
      throw invalid(
        field,
        `area ${i + 1}'s mask is ${mask.width} x ${mask.height} px; it must be the photo's size, ${photo.width} x ${photo.height} px`,
      );
    masks.push(mask);
  }
  const stored = async (image: { type: string; bytes: Buffer }) => {
    return { sha256: await storeImage(ctx.images, image.bytes), type: image.type };
  };
  const content: TemplateContent = {
    match: input.match,
    photo: { ...(await stored(photo)), width: photo.width, height: photo.height },
    areas: [],
  };
  for (const [i, area] of input.areas.entries()) {
    const mask = masks[i];
    content.areas.push({
      printArea: area.printArea,
      corners: quads[i]!,
      blend: area.blend,
      ...(mask ? { mask: await stored(mask) } : {}),
    });
  }
  const r = await handleCommand(
    ctx.store,
    mockupTemplateAggregate,
    mockupTemplateStream(labelId, templateId),
    { type: 'SetMockupTemplate', labelId, templateId, content, at: new Date() },
    metadata,
  );
  await ctx.readModels.seen('mockups', r.appended?.position);
  return getTemplate(ctx, labelId, templateId);
}

const notFound = () =>
  new DomainError('not_found', 'mockup template not found', 'template_not_found');

export async function getTemplate(
  ctx: AppContext,
  labelId: string,
  templateId: string,
): Promise<TemplateRow> {
  const found = await findTemplate(ctx.pool, labelId, templateId);
  if (!found) throw notFound();
  return found;
}

export const templatesOfLabel = (ctx: AppContext, labelId: string) =>
  listTemplates(ctx.pool, labelId);

export async function deleteTemplate(
  ctx: AppContext,
  labelId: string,
  templateId: string,
  metadata: EventMetadata,
): Promise<{ templateId: string; deleted: true }> {
  const r = await handleCommand(
    ctx.store,
    mockupTemplateAggregate,
    mockupTemplateStream(labelId, templateId),
    { type: 'DeleteMockupTemplate', labelId, templateId, at: new Date() },
    metadata,
  );
  await ctx.readModels.seen('mockups', r.appended?.position);
  return { templateId, deleted: true };
}
