import { createHash } from 'node:crypto';
import { facilityRow } from '#projections/facilities';
import { decrypt, openBytes, ownerKey, sealBytes } from '../db/encryption-keys.ts';
import { labelAggregate } from '../domain/label/decider.ts';
import { type Branding, labelStream } from '../domain/label/events.ts';
import { orderAggregate } from '../domain/order/decider.ts';
import { orderStream } from '../domain/order/events.ts';
import type { ShipTo } from '../domain/order/ship-to.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { ImageProblem } from '../print/errors.ts';
import { addressLines } from './addresses.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { printFilePreview } from './previews.ts';

/** Logos live in the image store, by content. */
const logoKey = (sha256: string) => `logo/${sha256}`;

async function label(ctx: AppContext, labelId: string) {
  const state = await loadState(ctx.store, labelAggregate, labelStream(labelId));
  if (!state.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
  return state;
}

/** What the label's packing slips show. */
export const branding = async (ctx: AppContext, labelId: string): Promise<Branding> =>
  (await label(ctx, labelId)).branding;

/** Records a change of the branding (what is left out stays) and answers the whole of it. */
async function change(
  ctx: AppContext,
  labelId: string,
  branding: Partial<Branding>,
  metadata: EventMetadata,
): Promise<Branding> {
  const r = await handleCommand(
    ctx.store,
    labelAggregate,
    labelStream(labelId),
    { type: 'SetBranding', branding, at: new Date() },
    { ...metadata, labelId },
  );
  if (!r.state.exists) throw new Error('label vanished');
  return r.state.branding;
}

/** Changes the return address, message or slip size; what is left out stays. */
export const setBranding = (
  ctx: AppContext,
  labelId: string,
  branding: Partial<Omit<Branding, 'logo'>>,
  metadata: EventMetadata,
) => change(ctx, labelId, branding, metadata);

/**
 * Takes a PNG or JPEG as the label's logo: checked in an image process (a file that
 * does not decode, or is too large, is 400 and nothing is kept), then kept as a PNG of
 * at most 1200 px, by content.
 */
export async function setLogo(
  ctx: AppContext,
  labelId: string,
  type: string,
  bytes: Buffer,
  metadata: EventMetadata,
): Promise<Branding> {
  await label(ctx, labelId);
  try {
    await ctx.imageChecks.check(`logo:${labelId}`, { type, bytes, widthMm: 60, heightMm: 20 });
  } catch (err) {
    if (err instanceof ImageProblem)
      throw new DomainError('invalid', err.message, 'invalid_logo', { field: 'body' });
    throw err;
  }
  // decoded and scaled in an image process: never in this one (a 1.5 GB iCCP chunk, 100 MP)
  const png = await ctx.imageChecks.logo(`logo:${labelId}`, bytes);
  const sha256 = createHash('sha256').update(png.data).digest('hex');
  await ctx.images.put(logoKey(sha256), png.data);
  const logo = { sha256, width: png.width, height: png.height };
  return change(ctx, labelId, { logo }, metadata);
}

/** No logo on the slips from now on. */
export const removeLogo = (ctx: AppContext, labelId: string, metadata: EventMetadata) =>
  change(ctx, labelId, { logo: null }, metadata);

/** Slips being drawn now, by their storage key: fifty asking at once cause one drawing. */
const drawing = new Map<string, Promise<Uint8Array>>();
/** Bump when the slip's drawing changes: slips kept before are drawn again. */
const SLIP_DRAWING = 'slip-2';

/**
 * An order's packing slip as a PDF, from its events (items, gift message), the label's
 * branding and each item's first mockup (or, without one, its print file's first page).
 * The same order and branding give the same bytes: a slip is drawn once, in an image
 * process, and kept in the print-file store under a key of what it shows; asked again,
 * it is served from there. Another label's order is not found.
 */
export async function packingSlip(
  ctx: AppContext,
  labelId: string,
  orderId: string,
  facilityId?: string,
): Promise<Uint8Array> {
  const order = await loadState(ctx.store, orderAggregate, orderStream(labelId, orderId));
  if (!order.exists || order.labelId !== labelId)
    throw new DomainError('not_found', 'order not found', 'order_not_found');
  // a facility's slip lists its items only; an order with none there is not its order
  const mine = [...order.items.values()].filter(
    (i) => facilityId === undefined || i.facilityId === facilityId,
  );
  if (mine.length === 0) throw new DomainError('not_found', 'order not found', 'order_not_found');
  const { branding: b } = await label(ctx, labelId);
  let giftMessage: string | null = null;
  let shipTo: string[] | undefined;
  // the customer's words are sealed with the order's key (before keys per order: the
  // label's); an erased customer's or label's key is gone, and their words with it
  const key =
    (order.giftMessage || order.shipTo) && !order.customerErased
      ? await ownerKey(ctx.pool, order.personalDataKey ?? labelId)
      : undefined;
  if (key && order.giftMessage)
    giftMessage = (decrypt(key, order.giftMessage) as { text: string }).text;
  if (key && order.shipTo) shipTo = addressLines(decrypt(key, order.shipTo) as ShipTo);
  const personal = giftMessage !== null || shipTo !== undefined;
  // a slip with the customer's words is kept sealed with that key, which erasure destroys
  const seal = (pdf: Uint8Array) => (key && personal ? sealBytes(key, pdf) : pdf);
  const unseal = (kept: Uint8Array) => (key && personal ? openBytes(key, kept) : kept);
  const facility = facilityId ? (await facilityRow(ctx.pool, facilityId))?.name : undefined;
  const items = mine.map((i) => {
    const file = i.files.at(-1);
    // the product as the customer chose it: its first mockup (by template), else the print file's
    // page
    const mockup = file
      ? [...order.mockups.values()]
          .filter((m) => m.orderItemId === i.item.orderItemId && m.printFileSha256 === file.sha256)
          .sort((a, b) =>
            a.templateId < b.templateId ? -1 : a.templateId > b.templateId ? 1 : 0,
          )[0]
      : undefined;
    return { i, file, mockup };
  });
  // what the slip shows, by content (the gift message hashed: no customer words in a key)
  const shown = createHash('sha256')
    .update(
      JSON.stringify({
        drawing: SLIP_DRAWING,
        orderId,
        receivedAt: order.receivedAt,
        branding: b,
        gift: giftMessage === null ? null : createHash('sha256').update(giftMessage).digest('hex'),
        shipTo: shipTo ? createHash('sha256').update(shipTo.join('\n')).digest('hex') : null,
        facility: facility ?? null,
        items: items.map(({ i, file, mockup }) => [
          i.item.itemId,
          i.item.sku,
          i.item.quantity,
          mockup?.storageKey ?? file?.sha256 ?? null,
        ]),
      }),
    )
    .digest('hex');
  const storageKey = `slips/${labelId}/${shown}.pdf`;
  const kept = await ctx.storage.get(storageKey);
  if (kept) return unseal(kept);
  let draw = drawing.get(storageKey);
  if (!draw) {
    draw = (async () => {
      const logo = b.logo ? await ctx.images.get(logoKey(b.logo.sha256)) : undefined;
      const slipItems = [];
      for (const { i, file, mockup } of items) {
        const preview =
          (mockup && (await ctx.storage.get(mockup.storageKey))) ??
          (file
            ? await printFilePreview(ctx, labelId, i.item.orderItemId, file.sha256, 1).catch(
                () => undefined,
              )
            : undefined);
        slipItems.push({
          itemId: i.item.itemId,
          sku: i.item.sku,
          quantity: i.item.quantity,
          preview,
        });
      }
      const pdf = await ctx.imageChecks.packingSlip(labelId, {
        orderId,
        receivedAt: order.receivedAt,
        size: b.slipSize,
        logo,
        returnAddress: b.returnAddress,
        shipTo,
        facility,
        message: b.message,
        giftMessage,
        items: slipItems,
      });
      await ctx.storage.put(storageKey, seal(pdf));
      return pdf;
    })().finally(() => drawing.delete(storageKey));
    drawing.set(storageKey, draw);
  }
  return draw;
}
