import { createHash, randomUUID } from 'node:crypto';
import { productionOf } from '#projections/order-production';
import { findOrder, findOrderItem } from '#projections/orders';
import { encrypt, ensureOwnerKey } from '../db/encryption-keys.ts';
import { cartItemAggregate } from '../domain/cart/decider.ts';
import { cartItemStream } from '../domain/cart/events.ts';
import { labelAggregate } from '../domain/label/decider.ts';
import { labelStream } from '../domain/label/events.ts';
import type { BarcodeFormat } from '../domain/order/barcode.ts';
import { type OrderState, orderAggregate } from '../domain/order/decider.ts';
import { CURRENT_RENDERER, type OrderItem, orderStream } from '../domain/order/events.ts';
import type { ShipTo } from '../domain/order/ship-to.ts';
import { projectAggregate } from '../domain/project/decider.ts';
import { projectStream } from '../domain/project/events.ts';
import { canonicalJson } from '../domain/shared/canonical-json.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata, EventStore, Position } from '../eventstore/port.ts';
import { WrongExpectedRevisionError } from '../eventstore/port.ts';
import { DEFAULT_PROFILE_DESCRIPTION, DEFAULT_PROFILE_SHA256 } from '../print/profiles.ts';
import { workflowIds } from '../temporal/contract.ts';
import { checkShipTo } from './addresses.ts';
import { approvalRules } from './approvals.ts';
import type { CachedReads } from './cached-reads.ts';
import { handleCommand, loadState, readState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { openShipTo, personalDataKeyOf } from './recipients.ts';
import { withDatasets } from './variable-items.ts';

export interface Notification {
  orderId: string;
  items: {
    itemId: string;
    projectId?: string | undefined;
    cartItemId?: string | undefined;
    quantity: number;
    /** a variable item: one record per row of this data set */
    datasetId?: string | undefined;
  }[];
  customer?: { name?: string | undefined; email?: string | undefined } | undefined;
  giftMessage?: string | undefined;
  /** the recipient: checked against its country's rules, kept encrypted */
  shipTo?: ShipTo | undefined;
  approval?: { required: boolean } | undefined;
}

export interface NotificationAnswer {
  orderId: string;
  status: 'accepted';
  items: { itemId: string; orderItemId: string }[];
}

const answerOf = (state: Extract<OrderState, { exists: true }>): NotificationAnswer => ({
  orderId: state.orderId,
  status: 'accepted',
  items: [...state.items.values()].map((i) => ({
    itemId: i.item.itemId,
    orderItemId: i.item.orderItemId,
  })),
});

/** The projects (and cart items) a notification names, read at once: one query. */
async function readLines(store: EventStore, n: Notification) {
  const carts = await Promise.all(
    n.items.map((line) =>
      line.cartItemId
        ? loadState(store, cartItemAggregate, cartItemStream(line.cartItemId))
        : undefined,
    ),
  );
  const projectIds = n.items.map((line, i) => {
    const cart = carts[i];
    return cart ? (cart.status === 'active' ? cart.projectId : undefined) : line.projectId;
  });
  const projects = await Promise.all(
    projectIds.map((id) =>
      id ? loadState(store, projectAggregate, projectStream(id)) : undefined,
    ),
  );
  return n.items.map((line, i) => ({
    line,
    cart: carts[i],
    projectId: projectIds[i],
    project: projects[i],
  }));
}

/** What each notified item is: its project's design and product, copied into the order. */
async function resolveItems(
  reads: CachedReads,
  labelId: string,
  lines: Awaited<ReturnType<typeof readLines>>,
): Promise<OrderItem[]> {
  const problems: string[] = [];
  const seen = new Set<string>();
  const items: OrderItem[] = [];
  for (const { line, cart, projectId, project } of lines) {
    if (seen.has(line.itemId)) problems.push(`item ${line.itemId} appears twice`);
    seen.add(line.itemId);
    let cartItemId: string | undefined;
    if (line.cartItemId) {
      if (cart?.status !== 'active' || cart.labelId !== labelId) {
        problems.push(`unknown cart item ${line.cartItemId}`);
        continue;
      }
      cartItemId = line.cartItemId;
    }
    if (project?.status !== 'active' || project.labelId !== labelId) {
      problems.push(`unknown project ${projectId}`);
      continue;
    }
    const { sku, supplier, design } = project.content;
    const offering = await reads.offering(supplier, sku);
    if (!offering || offering.renamed_to !== null || !offering.config.published) {
      problems.push(`project ${projectId}: ${supplier} ${sku} is not offered any more`);
      continue;
    }
    items.push({
      orderItemId: randomUUID(),
      itemId: line.itemId,
      projectId: projectId!,
      ...(cartItemId ? { cartItemId } : {}),
      quantity: line.quantity,
      sku: offering.sku,
      supplier,
      printMethod: offering.config.printMethod,
      printColors: offering.config.printColors,
      printAreas: offering.config.printAreas,
      design,
    });
  }
  if (problems.length > 0) throw new DomainError('invalid', problems.join('; '), 'unknown_item');
  return items;
}

/**
 * Records a sale notification; its print workflow is started from the log, so
 * `accepted` means recorded, whether or not the workflow service answers right now. The
 * order's stream is created with no_stream; the same order id with the same body
 * answers what was recorded, with another body 409; unknown projects or cart items are
 * 400 and record nothing. Customer data is stored encrypted.
 */
export async function receiveOrder(
  ctx: AppContext,
  labelId: string,
  source: { channel: 'shop' | 'fulfillment'; integrationId?: string },
  n: Notification,
  metadata: EventMetadata,
): Promise<NotificationAnswer> {
  const { answer, position, lastType } = await recordOrder(ctx, labelId, source, n, metadata);
  await ctx.readModels.seen('orders', position, lastType);
  return answer;
}

async function recordOrder(
  ctx: AppContext,
  labelId: string,
  source: { channel: 'shop' | 'fulfillment'; integrationId?: string },
  n: Notification,
  metadata: EventMetadata,
): Promise<{ answer: NotificationAnswer; position: Position | undefined; lastType?: string }> {
  const { store, pool, inkMethods, orderStates, reads } = ctx;
  // JSON with sorted keys: the same notification always hashes the same
  const bodyHash = createHash('sha256').update(canonicalJson(n)).digest('hex');
  const stream = orderStream(labelId, n.orderId);
  // a bad address is refused before anything is read or written
  const shipTo = n.shipTo ? checkShipTo(n.shipTo) : undefined;
  const personalDataKey = personalDataKeyOf(stream);
  const datasets = new Map(
    n.items.flatMap((line) => (line.datasetId ? [[line.itemId, line.datasetId] as const] : [])),
  );
  /** the items with their data sets, checked once however often the append races */
  let checked: OrderItem[] | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    // the order, its label and its projects, read in one query
    const [read, label, lines] = await Promise.all([
      readState(store, orderAggregate, stream),
      loadState(store, labelAggregate, labelStream(labelId)),
      readLines(store, n),
    ]);
    const existing = read.state;
    if (existing.exists) {
      if (existing.bodyHash !== bodyHash) {
        throw new DomainError(
          'conflict',
          `order ${n.orderId} was notified with another body`,
          'order_conflict',
        );
      }
      return { answer: answerOf(existing), position: undefined };
    }
    checked ??= await withDatasets(
      ctx,
      labelId,
      await resolveItems(reads, labelId, lines),
      datasets,
    );
    const items = checked;
    if (!label.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
    const hasCustomer = n.customer && (n.customer.name || n.customer.email);
    // sealed with the order's own key: erasing its customer destroys that key alone
    const key =
      hasCustomer || n.giftMessage || shipTo
        ? await ensureOwnerKey(pool, personalDataKey)
        : undefined;
    const customer = key && hasCustomer ? encrypt(key, n.customer) : null;
    const giftMessage = key && n.giftMessage ? encrypt(key, { text: n.giftMessage }) : null;
    try {
      const r = await handleCommand(
        store,
        orderAggregate,
        stream,
        {
          type: 'ReceiveOrder',
          orderId: n.orderId,
          labelId,
          bodyHash,
          source,
          customer,
          items,
          renderWithinMinutes: label.renderWithinMinutes,
          shipWithinHours: label.shipWithinHours,
          giftMessage,
          shipTo: key && shipTo ? encrypt(key, shipTo) : null,
          shipToCountry: shipTo?.country ?? null,
          personalDataKey,
          approval: approvalRules(label.approval, items, n.approval),
          print: {
            renderer: CURRENT_RENDERER,
            outputProfile: label.print.outputProfile ?? {
              sha256: DEFAULT_PROFILE_SHA256,
              description: DEFAULT_PROFILE_DESCRIPTION,
            },
            cropMarks: label.print.cropMarks,
            maxInkCoverage: label.print.maxInkCoverage,
            inkMethods,
          },
          at: new Date(),
        },
        { ...metadata, labelId },
        { read },
      );
      if (!r.state.exists) throw new Error('order not recorded');
      // its print run, in this process, starts from this state unread
      orderStates?.keepAppended(stream, r);
      return {
        answer: answerOf(r.state),
        position: r.appended?.position,
        lastType: r.events.at(-1)?.type,
      };
    } catch (err) {
      const raced =
        err instanceof WrongExpectedRevisionError ||
        (err instanceof DomainError && err.code === 'order_exists');
      if (!raced) throw err;
    }
  }
  throw new Error('order notification kept racing');
}

/** An order's state from its stream. */
export const loadOrderState = (store: EventStore, stream: string) =>
  loadState(store, orderAggregate, stream);

/** The order's state, for a label; another label's order is not found. */
async function loadOrder(store: EventStore, labelId: string, orderId: string) {
  const state = await loadState(store, orderAggregate, orderStream(labelId, orderId));
  return state.exists && state.labelId === labelId ? state : undefined;
}

/**
 * Records that an admin asked for a replay; the replay workflow is started from the log.
 * 404 for an unknown order (or another label's), 409 when it has no print file yet.
 */
export async function requestReplay(
  { store }: AppContext,
  labelId: string,
  orderId: string,
  metadata: EventMetadata,
): Promise<{ replayId: string; workflowId: string }> {
  if (!(await loadOrder(store, labelId, orderId)))
    throw new DomainError('not_found', 'order not found', 'order_not_found');
  const replayId = randomUUID();
  await handleCommand(
    store,
    orderAggregate,
    orderStream(labelId, orderId),
    { type: 'RequestReplay', replayId, at: new Date() },
    { ...metadata, labelId },
  );
  return { replayId, workflowId: workflowIds.replay(replayId) };
}

/**
 * Sets an order item's barcode; the regeneration (barcode, then print file) is started
 * from the log, one workflow per update.
 */
export async function changeBarcode(
  { store, pool }: AppContext,
  labelId: string,
  orderItemId: string,
  barcode: { format: BarcodeFormat; value: string },
  metadata: EventMetadata,
): Promise<{ orderItemId: string; workflowId: string }> {
  const item = await findOrderItem(pool, labelId, orderItemId);
  if (!item) throw new DomainError('not_found', 'order item not found', 'order_item_not_found');
  const r = await handleCommand(
    store,
    orderAggregate,
    item.stream_id,
    { type: 'UpdateBarcode', orderItemId, barcode, at: new Date() },
    { ...metadata, labelId },
  );
  if (!r.state.exists) throw new Error('order vanished');
  const version = r.state.items.get(orderItemId)!.barcodeVersion;
  return { orderItemId, workflowId: workflowIds.barcode(orderItemId, version) };
}

const orderNotFound = () => new DomainError('not_found', 'order not found', 'order_not_found');

/** An order of a label with its items, from the orders read model. */
export async function orderView(ctx: AppContext, labelId: string, orderId: string) {
  const order = await findOrder(ctx.pool, labelId, orderId);
  if (!order) throw orderNotFound();
  // after the order, as its items: never older than the order's status
  return {
    ...order,
    production: await productionOf(ctx.pool, order.stream_id),
    shipTo: await openShipTo(ctx, order.ship_to, order.personal_data_key),
  };
}

/** The order's events as stored, in order (personal data stays encrypted in them). */
export async function orderHistory(ctx: AppContext, labelId: string, orderId: string) {
  if (!(await loadOrder(ctx.store, labelId, orderId))) throw orderNotFound();
  return ctx.store.readStream(orderStream(labelId, orderId));
}
