import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import { feedMessage } from '#projections/webhooks';
import { FoldedStates } from '../app/folded-states.ts';
import { orderEvents } from '../domain/order/events.ts';
import {
  type ShopIntegrationState,
  shopIntegrationAggregate,
} from '../domain/shop-integration/decider.ts';
import { shopIntegrationStream } from '../domain/shop-integration/events.ts';
import { deliveryIdOf, webhookDeliveryEvents } from '../domain/webhook-delivery/events.ts';
import type { EventStore, RecordedEvent } from '../eventstore/port.ts';
import type { WorkflowStarts } from '../temporal/workflow-starts.ts';
import {
  type OrderRef,
  orderRefOf,
  TOLD,
  type WebhookMessage,
  webhookMessage,
} from '../webhooks/messages.ts';
import type { Reactor } from './reactor.ts';

/**
 * Tells shops what became of their orders: each order event a shop hears of starts one
 * delivery workflow to the webhook of the integration that sent the order (when it has
 * one, enabled, taking that type); a resend asked for starts another run. Started by
 * workflow id, so a reaction run twice starts once.
 */
export function webhooksReactor(
  starts: Pick<WorkflowStarts, 'webhook'>,
  store: EventStore,
  pool: pg.Pool,
  scale: number,
): Reactor {
  // an order's first event never changes: its reference is read once per order
  const refs = new LRUCache<string, { ref: OrderRef | undefined }>({ max: 20_000 });
  const refOf = async (streamId: string) => {
    const known = refs.get(streamId);
    if (known) return known.ref;
    const [first] = await store.readStream(streamId);
    const ref = first ? orderRefOf(orderEvents.deserialize(first)) : undefined;
    refs.set(streamId, { ref });
    return ref;
  };
  // an integration's state is read from where it was last read
  const integrations = new FoldedStates<ShopIntegrationState>(5_000);
  const deliver = async (
    integrationId: string,
    labelId: string,
    message: WebhookMessage,
    run: number,
  ) => {
    const { state: integration } = await integrations.read(
      store,
      shopIntegrationAggregate,
      shopIntegrationStream(integrationId),
    );
    const endpoint = integration.exists ? integration.webhook : undefined;
    if (!endpoint?.enabled) return;
    if (run === 0 && endpoint.events && !endpoint.events.includes(message.type)) return;
    await starts.webhook({
      deliveryId: deliveryIdOf(message.id, integrationId),
      integrationId,
      labelId,
      message,
      run,
      scale,
    });
  };

  return {
    // its own name: projections and reactors keep their checkpoints in one table
    name: 'webhook-deliveries',
    handles: new Set([...TOLD, 'WebhookResendRequested']),
    async react(stored: RecordedEvent) {
      if (stored.type === 'WebhookResendRequested') {
        const e = webhookDeliveryEvents.deserialize(stored);
        if (e.type !== 'WebhookResendRequested') return;
        const found = await feedMessage(pool, e.data.messageId);
        if (!found) throw new Error(`message ${e.data.messageId} is not in the feed yet`);
        await deliver(e.data.integrationId, found.labelId, found.message, e.data.run);
        return;
      }
      const event = orderEvents.deserialize(stored);
      const ref = event.type === 'OrderReceived' ? orderRefOf(event) : await refOf(stored.streamId);
      if (!ref?.integrationId) return;
      const message = webhookMessage(ref, stored, event);
      if (message) await deliver(ref.integrationId, ref.labelId, message, 0);
    },
  };
}
