import { ownerKey } from '../db/encryption-keys.ts';
import type { ItemState, OrderState } from '../domain/order/decider.ts';
import { RenderError } from '../print/errors.ts';
import { DEFAULT_PROFILE_SHA256, type OutputProfile } from '../print/profiles.ts';
import type { RenderJob } from '../print/render-job.ts';
import type { VariableJob } from '../print/vdp/jobs.ts';
import type { AppContext } from './context.ts';
import { labelImagesAt } from './label-images.ts';
import { loadOutputProfile } from './print-settings.ts';

/*
 * An order item's render jobs as its order says: everything a render process needs, so
 * the same order renders the same bytes anywhere (an item of one record, or a variable one).
 */

type OrderFound = Extract<OrderState, { exists: true }>;

/** What every render job takes of the order and its item. */
function jobItemOf(order: OrderFound, item: ItemState, barcode: ItemState['barcode']) {
  const i = item.item;
  return {
    orderId: order.orderId,
    orderItemId: i.orderItemId,
    sku: i.sku,
    printMethod: i.printMethod,
    printColors: i.printColors,
    printAreas: i.printAreas,
    design: i.design,
    barcode,
    createdAt: order.receivedAt,
  };
}

/** The output profile as a job carries it: absent for the bundled default (each process has it). */
const jobProfileOf = (profile: OutputProfile | undefined): RenderJob['profile'] =>
  profile && profile.sha256 !== DEFAULT_PROFILE_SHA256
    ? { sha256: profile.sha256, description: profile.description, bytes: profile.bytes }
    : undefined;

/** The render job of an item's print file as its order says (with `barcode`). */
export async function renderJobOf(
  deps: Pick<AppContext, 'images'>,
  order: OrderFound,
  item: ItemState,
  barcode: ItemState['barcode'],
): Promise<RenderJob> {
  const { print } = order;
  const profile =
    print.renderer === 1 ? undefined : await loadOutputProfile(deps.images, print.outputProfile);
  return {
    renderer: print.renderer,
    item: jobItemOf(order, item, barcode),
    images: [],
    profile: jobProfileOf(profile),
    inks: print.inkMethods.includes(item.item.printMethod.toLowerCase()),
    cropMarks: print.cropMarks,
    maxInkCoverage: print.maxInkCoverage,
  };
}

/** A variable item's render job as its order says: its data set, and the label's images then. */
export async function variableJobOf(
  deps: Pick<AppContext, 'images' | 'pool' | 'store'>,
  order: OrderFound,
  item: ItemState,
  barcode: ItemState['barcode'],
): Promise<VariableJob> {
  const dataset = item.item.dataset!;
  const key = await ownerKey(deps.pool, dataset.datasetId);
  if (!key)
    throw new RenderError(
      'its data set was erased: its records cannot be drawn again',
      'image_missing',
    );
  const profile = await loadOutputProfile(deps.images, order.print.outputProfile);
  const images = await labelImagesAt(deps.store, order.labelId, dataset.labelImagesAt);
  return {
    item: jobItemOf(order, item, barcode),
    profile: jobProfileOf(profile),
    cropMarks: order.print.cropMarks,
    maxInkCoverage: order.print.maxInkCoverage,
    dataset: { datasetId: dataset.datasetId, storageKey: dataset.storageKey, key },
    labelImages: Object.entries(images.images).map(([name, im]) => [
      name,
      { type: im.type, sha256: im.sha256 },
    ]),
  };
}
