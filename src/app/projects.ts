import { randomUUID } from 'node:crypto';
import { findOffering } from '#projections/offerings';
import { countUserProjects, findProject } from '#projections/projects';
import { cartItemAggregate } from '../domain/cart/decider.ts';
import { cartItemStream } from '../domain/cart/events.ts';
import {
  type ProjectCommand,
  type ProjectContent,
  projectAggregate,
} from '../domain/project/decider.ts';
import {
  fieldsIn,
  imageField,
  layerBox,
  layerName,
  MAX_IMAGE_BYTES,
  parseDataUrl,
} from '../domain/project/design.ts';
import { projectStream } from '../domain/project/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { refuseOverMaximum } from '../domain/shared/maximums.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { codeProblem } from '../print/code-fit.ts';
import { designInks, InkError } from '../print/inks.ts';
import { fitText } from '../print/text-fit.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { imageFailure } from './image-failure.ts';
import { inlineDesignImages, storeDesignImages } from './images.ts';
import { addingTo } from './label-collections.ts';

const invalid = (field: string, message: string) =>
  new DomainError('invalid', message, 'invalid_design', { field });

/**
 * Checks a design against its product configuration: the product is offered, every
 * area is one of its print areas (once), no layer lies wholly outside its area, and
 * every image can be printed (image-checks.ts, in an image process: the user's images
 * one at a time, at most IMAGE_CHECK_TIMEOUT_MS each). Errors name the layer as people
 * do ("layer 2 on FRONT: ...") and its field.
 */
export async function validateDesign(
  ctx: AppContext,
  owner: string,
  content: ProjectContent,
): Promise<void> {
  // the read model sku/data reads too, so a save and sku/data agree at every moment
  const offering = await findOffering(ctx.pool, content.supplier, content.sku);
  if (!offering || offering.renamed_to !== null || !offering.config.published) {
    throw new DomainError(
      'invalid',
      offering?.renamed_to
        ? `${content.sku} of ${content.supplier} was renamed to ${offering.renamed_to}: save the project with the new SKU`
        : `no product configuration ${content.sku} for ${content.supplier}`,
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
        `area ${ai + 1} of the design: ${area.printArea} is not a print area of ${content.sku} (${[...areas.keys()].join(', ') || 'none'})`,
      );
    }
    if (seen.has(area.printArea))
      throw invalid(`${at}.printArea`, `the print area ${area.printArea} appears twice`);
    seen.add(area.printArea);
    for (const [li, layer] of area.layers.entries()) {
      const name = layerName(area.printArea, li);
      const box = layerBox(layer);
      if (
        box.x >= spec.widthMm ||
        box.y >= spec.heightMm ||
        box.x + box.width <= 0 ||
        box.y + box.height <= 0
      ) {
        throw invalid(
          `${at}.layers.${li}`,
          `${name}: the layer lies wholly outside its print area`,
        );
      }
      const field = `${at}.layers.${li}`;
      // a layer filled from a data set row is checked with the rows (POST /datasets/{id}/check)
      if (layer.type === 'image' && imageField(layer.src) === undefined)
        await checkImageLayer(ctx, owner, layer, `${field}.src`, name);
      if (layer.type === 'text' && fieldsIn(layer.text).length === 0) {
        const fitted = fitText(layer, layer.text);
        if ('overflow' in fitted)
          throw invalid(
            `${field}.text`,
            `${name}: the text does not fit its box: ${fitted.overflow}`,
          );
      }
      if (layer.type === 'code' && fieldsIn(layer.data).length === 0) {
        const problem = codeProblem(layer, layer.data);
        if (problem) throw invalid(`${field}.data`, `${name}: ${problem}`);
      }
    }
  }
  const { printMethod, printColors } = offering.config;
  if (ctx.inkMethods.includes(printMethod.toLowerCase()))
    await checkInks(ctx, owner, content, printMethod, printColors);
}

/**
 * A product printed with inks (screen, pad, engraving) prints as many colours as it has
 * inks: a design with more, or with an image those inks cannot hold, is refused now,
 * naming the colours found, rather than failing when it is sold.
 */
async function checkInks(
  ctx: AppContext,
  owner: string,
  content: ProjectContent,
  printMethod: string,
  n: number,
): Promise<void> {
  try {
    await designInks(
      content.design,
      n,
      async (src) => parseDataUrl(src),
      (bytes, k) => ctx.imageChecks.colours(owner, bytes, k),
    );
  } catch (err) {
    if (!(err instanceof InkError))
      throw imageFailure(err, 'design', 'the design', 'invalid_design');
    throw new DomainError(
      'invalid',
      `${err.message} (${content.sku} is printed by ${printMethod} with ${n} ink${n === 1 ? '' : 's'})`,
      'too_many_colours',
      { field: err.at ?? 'design' },
    );
  }
}

async function checkImageLayer(
  ctx: AppContext,
  owner: string,
  layer: { src: string; width: number; height: number },
  field: string,
  name: string,
): Promise<void> {
  const parsed = parseDataUrl(layer.src);
  if (!parsed)
    throw invalid(field, `${name}: not a base64 data URL of a PNG, JPEG, WebP or SVG image`);
  if (parsed.bytes.length > MAX_IMAGE_BYTES)
    throw invalid(field, `${name}: the image is larger than 10 MB`);
  try {
    await ctx.imageChecks.check(owner, {
      type: parsed.type,
      bytes: parsed.bytes,
      widthMm: layer.width,
      heightMm: layer.height,
    });
  } catch (err) {
    throw imageFailure(err, field, name, 'invalid_design');
  }
}

type Session = { labelId: string; userRef: string };

/** A project of the session's user, its design with images inline; another's is not found. */
export async function getProject(ctx: AppContext, session: Session, projectId: string) {
  const view = await findProject(ctx.pool, session.labelId, session.userRef, projectId);
  if (!view) throw new DomainError('not_found', 'project not found', 'project_not_found');
  // clients get the design as they sent it: images as data URLs
  return { ...view, design: await inlineDesignImages(ctx.images, view.design) };
}

/**
 * Checks a design, puts its images into the image store (the events keep references)
 * and records the command made of the stored content (through `recorded`, which may
 * hold the append to a turn of its own); answers the project as read back.
 */
async function save(
  ctx: AppContext,
  session: Session,
  projectId: string,
  content: ProjectContent,
  metadata: EventMetadata,
  command: (stored: ProjectContent) => ProjectCommand,
  recorded: (append: () => Promise<void>) => Promise<void> = (append) => append(),
) {
  await validateDesign(ctx, `user:${session.labelId}:${session.userRef}`, content);
  const stored = { ...content, design: await storeDesignImages(ctx.images, content.design) };
  await recorded(async () => {
    const r = await handleCommand(
      ctx.store,
      projectAggregate,
      projectStream(projectId),
      command(stored),
      metadata,
    );
    await ctx.readModels.seen('projects', r.appended?.position);
  });
  return getProject(ctx, session, projectId);
}

/**
 * Saves a new project of the session's user. A user at the maximum is refused before the
 * design is checked; the count that holds is taken again when the project is recorded,
 * one creation of the user after another (the checks themselves run side by side, as
 * the image processes' queue per user expects).
 */
export async function createProject(
  ctx: AppContext,
  session: Session,
  content: ProjectContent,
  metadata: EventMetadata,
) {
  const held = () => countUserProjects(ctx.pool, session.userRef);
  refuseOverMaximum('projectsPerUser', await held(), 1, ctx.maximums.projectsPerUser);
  const projectId = randomUUID();
  return save(
    ctx,
    session,
    projectId,
    content,
    metadata,
    (stored) => ({
      type: 'CreateProject',
      projectId,
      ...session,
      content: stored,
      at: new Date(),
    }),
    // the append waits for the read model: the next creation counts this one
    (append) => addingTo(ctx.maximums, session.userRef, 'projectsPerUser', held, append),
  );
}

/** Replaces a project of the session's user; another's (or none) is not found. */
export async function updateProject(
  ctx: AppContext,
  session: Session,
  projectId: string,
  content: ProjectContent,
  metadata: EventMetadata,
) {
  const current = await loadState(ctx.store, projectAggregate, projectStream(projectId));
  if (
    current.status !== 'active' ||
    current.labelId !== session.labelId ||
    current.userRef !== session.userRef
  ) {
    throw new DomainError('not_found', 'project not found', 'project_not_found');
  }
  return save(ctx, session, projectId, content, metadata, (stored) => ({
    type: 'UpdateProject',
    ...session,
    content: stored,
    at: new Date(),
  }));
}

export async function deleteProject(
  ctx: AppContext,
  labelId: string,
  projectId: string,
  metadata: EventMetadata,
) {
  const r = await handleCommand(
    ctx.store,
    projectAggregate,
    projectStream(projectId),
    {
      type: 'DeleteProject',
      labelId,
      at: new Date(),
    },
    metadata,
  );
  await ctx.readModels.seen('projects', r.appended?.position);
  return { id: projectId, deleted: true as const };
}

/** A saved project of this user into the cart; someone else's project is unknown (400). */
export async function addCartItem(
  ctx: AppContext,
  session: Session,
  input: { projectId: string; quantity: number },
  metadata: EventMetadata,
): Promise<{ id: string }> {
  const project = await loadState(ctx.store, projectAggregate, projectStream(input.projectId));
  if (
    project.status !== 'active' ||
    project.labelId !== session.labelId ||
    project.userRef !== session.userRef
  ) {
    throw new DomainError('invalid', `unknown project ${input.projectId}`, 'unknown_project');
  }
  const cartItemId = randomUUID();
  const r = await handleCommand(
    ctx.store,
    cartItemAggregate,
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
  await ctx.readModels.seen('projects', r.appended?.position);
  return { id: cartItemId };
}

export async function removeCartItem(
  ctx: AppContext,
  labelId: string,
  cartItemId: string,
  metadata: EventMetadata,
) {
  const r = await handleCommand(
    ctx.store,
    cartItemAggregate,
    cartItemStream(cartItemId),
    {
      type: 'RemoveCartItem',
      labelId,
      at: new Date(),
    },
    metadata,
  );
  await ctx.readModels.seen('projects', r.appended?.position);
  return { id: cartItemId, deleted: true as const };
}
