import type pg from 'pg';
import { endpointHealth } from '#projections/webhooks';
import { handleCommand } from '../../app/command-handler.ts';
import { shopIntegrationAggregate } from '../../domain/shop-integration/decider.ts';
import { shopIntegrationStream } from '../../domain/shop-integration/events.ts';
import type { EventStore } from '../../eventstore/port.ts';
import { DISABLE_AFTER_MS } from '../schedule.ts';

const meta = { actor: 'system:webhooks' };

/** Disables an endpoint by the dispatcher's word: it answered 410, or failed for days. */
export const disableEndpoint = (
  store: EventStore,
  integrationId: string,
  reason: 'gone' | 'failing',
  detail: string,
) =>
  handleCommand(
    store,
    shopIntegrationAggregate,
    shopIntegrationStream(integrationId),
    { type: 'DisableWebhookEndpoint', labelId: undefined, reason, detail, at: new Date() },
    meta,
  );

/** An endpoint that has failed every delivery for five days is disabled. */
export async function disableWhenFailingLong(
  deps: { store: EventStore; db: pg.Pool },
  integrationId: string,
  at: Date,
): Promise<void> {
  const health = await endpointHealth(deps.db, integrationId);
  if (health.failingSince && at.getTime() - Date.parse(health.failingSince) > DISABLE_AFTER_MS)
    await disableEndpoint(
      deps.store,
      integrationId,
      'failing',
      `every delivery failed since ${health.failingSince}`,
    );
}
