import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { findOrderItemMockup, orderItemMockups, type TemplateRow } from '#projections/mockups';
import { findOrderItem } from '#projections/orders';
import { labelAggregate } from '../domain/label/decider.ts';
import { labelStream } from '../domain/label/events.ts';
import type { PrintArea } from '../domain/product/configuration.ts';
import { projectAggregate } from '../domain/project/decider.ts';
import type { Design } from '../domain/project/design.ts';
import { imageRef } from '../domain/project/design.ts';
import { projectStream } from '../domain/project/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { MockupFormat, MockupJob, TemplateToDraw } from '../mockup/draw.ts';
import { JobCrashedError, JobDeadlineError } from '../print/process-pool.ts';
import { DEFAULT_PROFILE_DESCRIPTION, DEFAULT_PROFILE_SHA256 } from '../print/profiles.ts';
import { designImages, loadImage } from '../storage/design-images.ts';
import type { FileStorage } from '../storage/port.ts';
import { mockupPath } from '../webhooks/messages.ts';
import type { CachedReads } from './cached-reads.ts';
import { loadState, readState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { loadOutputProfile } from './print-settings.ts';

export const MAX_MOCKUP_WIDTH = 3000;
export const DEFAULT_MOCKUP_WIDTH = 1000;
export const EXTENSIONS: Record<MockupFormat, string> = { png: 'png', jpeg: 'jpg' };
export const CONTENT_TYPES: Record<MockupFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
};

export interface MockupRequest {
  templateId?: string | undefined;
  format: MockupFormat;
  width: number;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The template's photo and masks from the image store, each area on its design's page. */
export async function templateToDraw(
  images: FileStorage,
  t: TemplateRow,
  design: Design,
): Promise<TemplateToDraw> {
  const load = async (image: { sha256: string; type: string }) => {
    const found = await loadImage(images, imageRef(image.type, image.sha256));
    if (!found)
      throw new Error(`the image ${image.sha256} of template ${t.template_id} is missing`);
    return { sha256: image.sha256, bytes: found.bytes };
  };
  const pages = new Map(design.areas.map((a, i) => [a.printArea, i]));
  const areas: TemplateToDraw['areas'] = [];
  for (const area of t.content.areas) {
    const page = pages.get(area.printArea);
    if (page === undefined) continue; // the design leaves this print area empty
    areas.push({
      page,
      corners: area.corners,
      blend: area.blend,
      mask: area.mask ? await load(area.mask) : undefined,
    });
  }
  const { width, height } = t.content.photo;
  return { photo: { ...(await load(t.content.photo)), width, height }, areas };
}

/** A label's templates for a product (by its SKU, base SKU and colour), with its configuration. */
export async function productTemplates(
  reads: CachedReads,
  labelId: string,
  product: { supplier: string; sku: string },
) {
  const offering = await reads.offering(product.supplier, product.sku);
  const templates = await reads.templates(labelId, {
    sku: product.sku,
    baseSKU: offering?.config.baseSKU ?? '',
    productColor: offering?.config.productColor ?? '',
  });
  return { offering, templates };
}

/** A failed drawing as the client hears of it: the work took too long, try again later. */
export function drawingFailure(err: unknown): unknown {
  if (err instanceof JobDeadlineError || err instanceof JobCrashedError)
    return new DomainError(
      'unavailable',
      `drawing the mockup failed (${err.message}); try again later`,
      'mockup_failed',
      { retryAfterSeconds: 30 },
    );
  return err;
}

// ---- before the sale: a project's mockups, cached by revisions and size ----

/**
 * A cached mockup's name: the project's revision, the template's, the size and format,
 * then the template id (which may hold dots and dashes). A project or template changed
 * gets new names; old ones are never drawn over.
 */
export const projectMockupName = (
  projectRevision: number,
  t: { template_id: string; revision: number },
  r: MockupRequest,
  profileSha256: string,
) =>
  `p${projectRevision}-t${t.revision}-w${r.width}-c${profileSha256.slice(0, 8)}-${t.template_id}.${EXTENSIONS[r.format]}`;
export const PROJECT_MOCKUP_NAME =
  /^p([0-9]{1,9})-t([0-9]{1,9})-w([0-9]{1,4})-c([0-9a-f]{8})-(.+)\.(png|jpg)$/;
const cacheKey = (projectId: string, name: string) => `mockups/${projectId}/${name}`;

export interface ProjectMockup {
  templateId: string;
  templateRevision: number;
  format: MockupFormat;
  width: number;
  height: number;
  sha256: string;
  bytes: number;
  name: string;
}

/** Who asks: the label's admin, or (with userRef) the editor's user owning the project. */
export interface ProjectAccess {
  labelId: string;
  userRef?: string | undefined;
}

const projectNotFound = () =>
  new DomainError('not_found', 'project not found', 'project_not_found');

async function accessibleProject(ctx: AppContext, access: ProjectAccess, projectId: string) {
  const { stored, state } = await readState(ctx.store, projectAggregate, projectStream(projectId));
  if (
    state.status !== 'active' ||
    state.labelId !== access.labelId ||
    (access.userRef !== undefined && state.userRef !== access.userRef)
  )
    throw projectNotFound();
  return { content: state.content, revision: Number(stored[stored.length - 1]!.revision) + 1 };
}

/** Drawings under way in this process, by the cache key of their first mockup. */
const drawing = new Map<string, Promise<void>>();

/**
 * A project's mockups on the label's templates for its product (or the one asked for),
 * drawn now when they are not cached yet; `ready: false` when the drawing takes longer
 * than `waitMs` (it goes on: asking again finds it). Drawn from the print file the
 * design would make, so the shop sees what the press would get.
 */
export async function projectMockups(
  ctx: AppContext,
  access: ProjectAccess,
  projectId: string,
  request: MockupRequest,
  waitMs: number,
): Promise<{ ready: true; revision: number; mockups: ProjectMockup[] } | { ready: false }> {
  const { content, revision } = await accessibleProject(ctx, access, projectId);
  const { offering, templates: matching } = await productTemplates(
    ctx.reads,
    access.labelId,
    content,
  );
  const templates = matching.filter(
    (t) => request.templateId === undefined || t.template_id === request.templateId,
  );
  if (templates.length === 0)
    throw new DomainError(
      'not_found',
      request.templateId === undefined
        ? `the label has no mockup template for ${content.sku}`
        : `the label has no mockup template ${request.templateId} for ${content.sku}`,
      'template_not_found',
    );
  // the label's print settings now: the print file the order would get
  const label = await loadState(ctx.store, labelAggregate, labelStream(access.labelId));
  const profile = (label.exists ? label.print.outputProfile : undefined) ?? {
    sha256: DEFAULT_PROFILE_SHA256,
    description: DEFAULT_PROFILE_DESCRIPTION,
  };
  const names = templates.map((t) => projectMockupName(revision, t, request, profile.sha256));
  const found = await Promise.all(names.map((n) => ctx.images.get(cacheKey(projectId, n))));
  const missing = templates.filter((_, i) => !found[i]);
  if (missing.length > 0) {
    const key = cacheKey(projectId, names[templates.indexOf(missing[0]!)]!);
    let draw = drawing.get(key);
    if (!draw) {
      const owner = access.userRef
        ? `user:${access.labelId}:${access.userRef}`
        : `label:${access.labelId}`;
      const config = offering?.config;
      const made = {
        ...content,
        printAreas: config?.printAreas ?? [],
        printMethod: config?.printMethod ?? '',
        printColors: config?.printColors ?? 4,
        profile,
        names: missing.map((t) => names[templates.indexOf(t)]!),
      };
      draw = drawProjectMockups(ctx, owner, projectId, made, missing, request).finally(() =>
        drawing.delete(key),
      );
      drawing.set(key, draw);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), waitMs);
    });
    try {
      if ((await Promise.race([draw, late])) === 'late') {
        draw.catch(() => {}); // asked again, it is drawn again
        return { ready: false };
      }
    } catch (err) {
      throw drawingFailure(err);
    } finally {
      clearTimeout(timer);
    }
  }
  const mockups: ProjectMockup[] = [];
  for (const [i, t] of templates.entries()) {
    const bytes = found[i] ?? (await ctx.images.get(cacheKey(projectId, names[i]!)));
    if (!bytes) return { ready: false }; // removed meanwhile by the clean-up: drawn again next time
    const { width, height } = await sharp(bytes).metadata();
    mockups.push({
      templateId: t.template_id,
      templateRevision: t.revision,
      format: request.format,
      width: width ?? request.width,
      height: height ?? 0,
      sha256: sha256(bytes),
      bytes: bytes.length,
      name: names[i]!,
    });
  }
  return { ready: true, revision, mockups };
}

/** Draws and caches a project's mockups, from the print file its design makes now. */
async function drawProjectMockups(
  ctx: AppContext,
  owner: string,
  projectId: string,
  project: {
    sku: string;
    design: Design;
    printAreas: PrintArea[];
    printMethod: string;
    printColors: number;
    profile: { sha256: string; description: string };
    /** the cache names of the templates' mockups */
    names: string[];
  },
  templates: TemplateRow[],
  request: MockupRequest,
): Promise<void> {
  const job: MockupJob = {
    source: {
      render: {
        renderer: 2,
        item: {
          orderId: 'mockup',
          orderItemId: projectId,
          sku: project.sku,
          printMethod: project.printMethod,
          printColors: project.printColors,
          printAreas: project.printAreas,
          design: project.design,
          barcode: { format: 'code128', value: projectId },
          createdAt: new Date(0).toISOString(),
        },
        images: await designImages(ctx.images, project.design),
        profile:
          project.profile.sha256 === DEFAULT_PROFILE_SHA256
            ? undefined
            : await loadOutputProfile(ctx.images, project.profile),
        inks: ctx.inkMethods.includes(project.printMethod.toLowerCase()),
        cropMarks: false,
        maxInkCoverage: 400,
      },
    },
    templates: await Promise.all(
      templates.map((t) => templateToDraw(ctx.images, t, project.design)),
    ),
    width: request.width,
    format: request.format,
  };
  const drawn = await ctx.mockupDrawing.draw(owner, job);
  for (const [i, name] of project.names.entries())
    await ctx.images.put(cacheKey(projectId, name), drawn[i]!.bytes);
}

/** A cached mockup of a project the asker may see; undefined when it is not drawn. */
export async function projectMockupImage(
  ctx: AppContext,
  access: ProjectAccess,
  projectId: string,
  name: string,
): Promise<{ bytes: Buffer; contentType: string }> {
  await accessibleProject(ctx, access, projectId);
  const m = PROJECT_MOCKUP_NAME.exec(name);
  const bytes = m ? await ctx.images.get(cacheKey(projectId, name)) : undefined;
  if (!m || !bytes) throw new DomainError('not_found', 'no such mockup', 'mockup_not_found');
  return { bytes, contentType: m[6] === 'png' ? 'image/png' : 'image/jpeg' };
}

// ---- after the sale: an order item's recorded mockups ----

export interface OrderItemMockup {
  templateId: string;
  templateRevision: number;
  printFileSha256: string;
  sha256: string;
  bytes: number;
  format: MockupFormat;
  width: number;
  height: number;
  renderedAt: string;
  download: string;
}

const itemNotFound = () =>
  new DomainError('not_found', 'order item not found', 'order_item_not_found');

/** An order item's mockups, newest first; another label's item is not found. */
export async function orderItemMockupList(
  ctx: AppContext,
  labelId: string,
  orderItemId: string,
): Promise<OrderItemMockup[]> {
  if (!(await findOrderItem(ctx.pool, labelId, orderItemId))) throw itemNotFound();
  return (await orderItemMockups(ctx.pool, labelId, [orderItemId])).map((m) => ({
    templateId: m.template_id,
    templateRevision: m.template_revision,
    printFileSha256: m.print_file_sha256,
    sha256: m.sha256,
    bytes: Number(m.bytes),
    format: m.format,
    width: m.width,
    height: m.height,
    renderedAt: m.rendered_at.toISOString(),
    download: mockupPath(m.order_item_id, m.sha256),
  }));
}

/** One of an order item's mockups, as stored. */
export async function orderItemMockupImage(
  ctx: AppContext,
  labelId: string,
  orderItemId: string,
  sha256: string,
): Promise<{ bytes: Buffer; contentType: string }> {
  const m = await findOrderItemMockup(ctx.pool, labelId, orderItemId, sha256);
  const bytes = m && (await ctx.storage.get(m.storage_key));
  if (!m || !bytes) throw new DomainError('not_found', 'no such mockup', 'mockup_not_found');
  return { bytes, contentType: CONTENT_TYPES[m.format] };
}
