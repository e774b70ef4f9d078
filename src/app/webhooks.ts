import { randomUUID } from 'node:crypto';
import {
  type DeliveryAttempt,
  type DeliveryRow,
  decodeDeliveryCursor,
  decodeFeedCursor,
  encodeDeliveryCursor,
  endpointHealth,
  feedPage,
  findDelivery,
  listDeliveries,
} from '#projections/webhooks';
import { encrypt, ensureOwnerKey } from '../db/encryption-keys.ts';
import { DomainError } from '../domain/shared/decider.ts';
import {
  type ShopIntegrationCommand,
  shopIntegrationAggregate,
  type WebhookEndpoint,
} from '../domain/shop-integration/decider.ts';
import {
  DEFAULT_DELIVERY,
  shopIntegrationStream,
  type WebhookDeliverySettings,
  type WebhookEventType,
} from '../domain/shop-integration/events.ts';
import { webhookDeliveryEvents, webhookDeliveryStream } from '../domain/webhook-delivery/events.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { urlProblem } from '../webhooks/address.ts';
import { newSigningSecret } from '../webhooks/signing.ts';
import { handleCommand, loadState, readState } from './command-handler.ts';
import type { AppContext } from './context.ts';

export interface WebhookView {
  integrationId: string;
  /** null until a webhook is set */
  url: string | null;
  /** null: every type */
  events: WebhookEventType[] | null;
  delivery: WebhookDeliverySettings;
  state: 'none' | 'enabled' | 'disabled';
  disabled: { reason: string; detail: string; at: string } | null;
  /** the secrets that sign now: the current one, and a rotated-out one until it stops */
  secrets: { secretId: string; until: string | null }[];
  lastSuccessAt: string | null;
  failingSince: string | null;
}

const noWebhook = () =>
  new DomainError(
    'conflict',
    'this shop integration has no webhook: set one first (PUT .../webhook)',
    'webhook_not_set',
  );
const notFound = () =>
  new DomainError('not_found', 'shop integration not found', 'shop_integration_not_found');

async function endpointOf(ctx: AppContext, labelId: string, integrationId: string) {
  const s = await loadState(
    ctx.store,
    shopIntegrationAggregate,
    shopIntegrationStream(integrationId),
  );
  if (!s.exists || s.labelId !== labelId) throw notFound();
  if (!s.webhook) throw noWebhook();
  return s.webhook;
}

async function view(
  ctx: AppContext,
  integrationId: string,
  w: WebhookEndpoint,
): Promise<WebhookView> {
  const health = await endpointHealth(ctx.pool, integrationId);
  const now = Date.now();
  return {
    integrationId,
    url: w.url,
    events: w.events ?? null,
    delivery: w.delivery,
    state: w.enabled ? 'enabled' : 'disabled',
    disabled: w.disabled ?? null,
    secrets: w.secrets
      .filter((s) => !s.until || Date.parse(s.until) > now)
      .map((s) => ({ secretId: s.signing.secretId, until: s.until ?? null })),
    ...health,
  };
}

/** The webhook of an integration; `state: none` (and no url) until one is set. */
export async function getWebhook(
  ctx: AppContext,
  labelId: string,
  integrationId: string,
): Promise<WebhookView> {
  const s = await loadState(
    ctx.store,
    shopIntegrationAggregate,
    shopIntegrationStream(integrationId),
  );
  if (!s.exists || s.labelId !== labelId) throw notFound();
  if (!s.webhook)
    return {
      integrationId,
      url: null,
      events: null,
      delivery: DEFAULT_DELIVERY,
      state: 'none',
      disabled: null,
      secrets: [],
      lastSuccessAt: null,
      failingSince: null,
    };
  return view(ctx, integrationId, s.webhook);
}

/** A new secret, encrypted with the integration's key: the plain one is shown once. */
async function sealedSecret(ctx: AppContext, integrationId: string) {
  const secret = newSigningSecret();
  const key = await ensureOwnerKey(ctx.pool, integrationId);
  return { secret, signing: { secretId: `whs_${randomUUID()}`, secret: encrypt(key, secret) } };
}

async function command(
  ctx: AppContext,
  labelId: string,
  integrationId: string,
  cmd: ShopIntegrationCommand,
  metadata: EventMetadata,
) {
  await handleCommand(
    ctx.store,
    shopIntegrationAggregate,
    shopIntegrationStream(integrationId),
    cmd,
    { ...metadata, labelId },
  );
  return getWebhook(ctx, labelId, integrationId);
}

/** Sets (or replaces) the integration's webhook; a new signing secret, returned once. */
export async function setWebhook(
  ctx: AppContext,
  labelId: string,
  integrationId: string,
  input: {
    url: string;
    events?: WebhookEventType[] | undefined;
    delivery?: WebhookDeliverySettings | undefined;
  },
  metadata: EventMetadata,
): Promise<WebhookView & { secret: string }> {
  const problem = urlProblem(input.url, ctx.webhookTargets);
  if (problem)
    throw new DomainError('invalid', `url: ${problem}`, 'invalid_webhook_url', { field: 'url' });
  const { exists } = await readState(
    ctx.store,
    shopIntegrationAggregate,
    shopIntegrationStream(integrationId),
  ).then((r) => ({ exists: r.state.exists && r.state.labelId === labelId }));
  if (!exists) throw notFound();
  const { secret, signing } = await sealedSecret(ctx, integrationId);
  const v = await command(
    ctx,
    labelId,
    integrationId,
    {
      type: 'SetWebhookEndpoint',
      labelId,
      url: input.url,
      events: input.events,
      delivery: input.delivery,
      signing,
      at: new Date(),
    },
    metadata,
  );
  return { ...v, secret };
}

/** A new signing secret; the one before keeps signing beside it for 24 hours. */
export async function rotateWebhookSecret(
  ctx: AppContext,
  labelId: string,
  integrationId: string,
  metadata: EventMetadata,
): Promise<WebhookView & { secret: string }> {
  await endpointOf(ctx, labelId, integrationId);
  const { secret, signing } = await sealedSecret(ctx, integrationId);
  const v = await command(
    ctx,
    labelId,
    integrationId,
    { type: 'RotateWebhookSecret', labelId, signing, at: new Date() },
    metadata,
  );
  return { ...v, secret };
}

export const disableWebhook = (
  ctx: AppContext,
  labelId: string,
  integrationId: string,
  metadata: EventMetadata,
) =>
  command(
    ctx,
    labelId,
    integrationId,
    {
      type: 'DisableWebhookEndpoint',
      labelId,
      reason: 'requested',
      detail: `disabled by ${metadata.actor ?? 'the admin'}`,
      at: new Date(),
    },
    metadata,
  );

export const enableWebhook = (
  ctx: AppContext,
  labelId: string,
  integrationId: string,
  metadata: EventMetadata,
) =>
  command(
    ctx,
    labelId,
    integrationId,
    { type: 'EnableWebhookEndpoint', labelId, at: new Date() },
    metadata,
  );

export interface DeliveryView {
  deliveryId: string;
  messageId: string;
  type: WebhookEventType;
  /** null for a message of no order (the label's daily tree head) */
  orderId: string | null;
  status: DeliveryRow['status'];
  runs: number;
  attempts: number;
  firstAttemptAt: string;
  lastAttemptAt: string;
  deliveredAt: string | null;
  /** the latest attempts (up to 20): time, status, latency, the first KiB of the answer */
  log: DeliveryAttempt[];
}

const deliveryView = (r: DeliveryRow): DeliveryView => ({
  deliveryId: r.delivery_id,
  messageId: r.message_id,
  type: r.message_type as WebhookEventType,
  orderId: r.order_id,
  status: r.status,
  runs: r.runs,
  attempts: r.attempts,
  firstAttemptAt: new Date(r.first_at).toISOString(),
  lastAttemptAt: new Date(r.last_at).toISOString(),
  deliveredAt: r.delivered_at ? new Date(r.delivered_at).toISOString() : null,
  log: r.log,
});

export async function webhookDeliveries(
  ctx: AppContext,
  labelId: string,
  integrationId: string,
  f: {
    status?: string | undefined;
    since?: string | undefined;
    before?: string | undefined;
    limit: number;
  },
): Promise<{ deliveries: DeliveryView[]; next: string | undefined }> {
  await endpointOf(ctx, labelId, integrationId);
  const notCursor = () =>
    new DomainError('invalid', 'before: not a cursor of this list', 'invalid_cursor', {
      field: 'query.before',
    });
  const before = f.before === undefined ? undefined : decodeDeliveryCursor(f.before);
  if (f.before !== undefined && !before) throw notCursor();
  const rows = await listDeliveries(ctx.pool, {
    integrationId,
    status: f.status,
    since: f.since,
    before,
    limit: f.limit,
  }).catch((err: { code?: string }) => {
    // a made-up cursor naming no instant (say February 30th)
    throw before && err.code?.startsWith('22') ? notCursor() : err;
  });
  const last = rows.at(-1);
  return {
    deliveries: rows.map(deliveryView),
    next: rows.length === f.limit && last ? encodeDeliveryCursor(last) : undefined,
  };
}

async function requestResend(
  ctx: AppContext,
  labelId: string,
  row: DeliveryRow,
  metadata: EventMetadata,
) {
  const event = webhookDeliveryEvents.serialize({
    type: 'WebhookResendRequested',
    data: {
      deliveryId: row.delivery_id,
      integrationId: row.integration_id,
      messageId: row.message_id,
      run: row.runs,
      requestedAt: new Date().toISOString(),
    },
  });
  // one resend per run: asking twice before the first is taken asks once
  const r = await ctx.store.append(
    webhookDeliveryStream(row.delivery_id),
    [{ id: randomUUID(), ...event, metadata: { ...metadata, labelId } }],
    'any',
  );
  return { deliveryId: row.delivery_id, run: row.runs, position: r.position };
}

async function enabledEndpointOf(ctx: AppContext, labelId: string, integrationId: string) {
  const w = await endpointOf(ctx, labelId, integrationId);
  if (!w.enabled)
    throw new DomainError(
      'conflict',
      'the webhook is disabled: enable it first',
      'webhook_disabled',
    );
  return w;
}

/** Sends one delivery again (a new run on the schedule, the same webhook-id). */
export async function resendDelivery(
  ctx: AppContext,
  labelId: string,
  integrationId: string,
  deliveryId: string,
  metadata: EventMetadata,
): Promise<{ deliveryId: string; run: number }> {
  await enabledEndpointOf(ctx, labelId, integrationId);
  const row = await findDelivery(ctx.pool, integrationId, deliveryId);
  if (!row) throw new DomainError('not_found', 'delivery not found', 'delivery_not_found');
  const { run } = await requestResend(ctx, labelId, row, metadata);
  return { deliveryId, run };
}

/** Sends again every failed delivery whose first attempt was at or after `since`. */
export async function recoverDeliveries(
  ctx: AppContext,
  labelId: string,
  integrationId: string,
  since: string,
  metadata: EventMetadata,
): Promise<{ resent: number; deliveryIds: string[] }> {
  await enabledEndpointOf(ctx, labelId, integrationId);
  const failed = await listDeliveries(ctx.pool, {
    integrationId,
    status: 'failed',
    since,
    limit: 10_000,
  });
  for (const row of failed) await requestResend(ctx, labelId, row, metadata);
  return { resent: failed.length, deliveryIds: failed.map((r) => r.delivery_id) };
}

/** The pull feed: the label's messages in log order (an integration's own orders only). */
export async function eventFeed(
  ctx: AppContext,
  scope: { labelId: string; integrationId?: string | undefined },
  after: string | undefined,
  limit: number,
) {
  let position: { commit: bigint; prepare: bigint } | undefined;
  if (after) {
    const p = decodeFeedCursor(after);
    if (!p)
      throw new DomainError('invalid', 'after: not a cursor of this feed', 'invalid_cursor', {
        field: 'query.after',
      });
    position = { commit: BigInt(p.commit), prepare: BigInt(p.prepare) };
  }
  const page = await feedPage(ctx.pool, {
    ...scope,
    ...(position ? { after: position } : {}),
    limit,
  });
  return { events: page.messages, next: page.last ?? after ?? null };
}
