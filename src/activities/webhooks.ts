import type pg from 'pg';
import { endpointHealth } from '#projections/webhooks';
import type { WebhookDeliveryInput } from '../../workflows/webhook-delivery.ts';
import { handleCommand, loadState } from '../app/command-handler.ts';
import { decrypt, ownerKey } from '../db/encryption-keys.ts';
import { deterministicId } from '../domain/shared/ids.ts';
import { shopIntegrationAggregate } from '../domain/shop-integration/decider.ts';
import { shopIntegrationStream } from '../domain/shop-integration/events.ts';
import { webhookDeliveryEvents, webhookDeliveryStream } from '../domain/webhook-delivery/events.ts';
import type { EventStore } from '../eventstore/port.ts';
import { resolvedProblem, type WebhookTargets } from '../webhooks/address.ts';
import { ATTEMPTS, DISABLE_AFTER_MS, parseRetryAfter } from '../webhooks/schedule.ts';
import { signedHeaders } from '../webhooks/signing.ts';

export interface WebhookDeps {
  store: EventStore;
  db: pg.Pool;
  targets: WebhookTargets;
  /** how long one POST may take */
  timeoutMs: number;
  /** told each attempt's outcome */
  observeWebhook?: (outcome: string, seconds: number) => void;
}

export type AttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'gone' | 'disabled';

const RESPONSE_KEPT = 1024;
const meta = { actor: 'system:webhooks' };

/**
 * One attempt of a webhook delivery: signs the message with the endpoint's secrets
 * (the current one, and a rotated-out one while it still signs), POSTs it without
 * following redirects, and records the attempt in the delivery's stream (its event id
 * derives from the delivery, run and attempt, so a retried activity records it once).
 * 2xx delivered; 410 disables the endpoint; anything else, or no answer, retries; an
 * endpoint failing every delivery for five days is disabled.
 */
export function webhookActivities(deps: WebhookDeps) {
  async function record(
    input: WebhookDeliveryInput,
    attempt: number,
    url: string,
    r: { status?: number; error?: string; latencyMs: number; response: string },
    outcome: Exclude<AttemptOutcome, 'disabled'>,
  ) {
    const event = webhookDeliveryEvents.serialize({
      type: 'WebhookDeliveryAttempted',
      data: {
        deliveryId: input.deliveryId,
        integrationId: input.integrationId,
        labelId: input.labelId,
        messageId: input.message.id,
        messageType: input.message.type,
        orderId: input.message.data.orderId,
        run: input.run,
        attempt,
        url,
        ...(r.status !== undefined ? { status: r.status } : {}),
        ...(r.error !== undefined ? { error: r.error } : {}),
        latencyMs: r.latencyMs,
        response: r.response,
        outcome,
        attemptedAt: new Date().toISOString(),
      },
    });
    await deps.store.append(
      webhookDeliveryStream(input.deliveryId),
      [
        {
          id: deterministicId(`webhook:${input.deliveryId}:${input.run}:${attempt}`),
          ...event,
          metadata: { ...meta, labelId: input.labelId },
        },
      ],
      'any',
    );
    deps.observeWebhook?.(outcome, r.latencyMs / 1000);
  }

  const disable = (integrationId: string, reason: 'gone' | 'failing', detail: string) =>
    handleCommand(
      deps.store,
      shopIntegrationAggregate,
      shopIntegrationStream(integrationId),
      { type: 'DisableWebhookEndpoint', labelId: undefined, reason, detail, at: new Date() },
      meta,
    );

  return {
    async attemptWebhookDelivery(
      input: WebhookDeliveryInput,
      attempt: number,
    ): Promise<{ outcome: AttemptOutcome; retryAfterMs?: number }> {
      const integration = await loadState(
        deps.store,
        shopIntegrationAggregate,
        shopIntegrationStream(input.integrationId),
      );
      const endpoint = integration.exists ? integration.webhook : undefined;
      if (!endpoint?.enabled) return { outcome: 'disabled' };
      const last = attempt >= ATTEMPTS;
      const failed = last ? 'failed' : 'retrying';
      const problem = await resolvedProblem(endpoint.url, deps.targets).catch(
        (err: Error) => `cannot resolve the host (${err.message})`,
      );
      if (problem) {
        await record(
          input,
          attempt,
          endpoint.url,
          { error: problem, latencyMs: 0, response: '' },
          failed,
        );
        return { outcome: failed };
      }
      const key = await ownerKey(deps.db, input.integrationId);
      if (!key) throw new Error(`no key for integration ${input.integrationId}`);
      const now = new Date();
      const secrets = endpoint.secrets
        .filter((s) => !s.until || Date.parse(s.until) > now.getTime())
        .map((s) => String(decrypt(key, s.signing.secret)));
      const body = JSON.stringify({
        type: input.message.type,
        timestamp: input.message.timestamp,
        data: input.message.data,
      });
      const began = performance.now();
      let status: number | undefined;
      let error: string | undefined;
      let response = '';
      let retryAfterMs: number | undefined;
      try {
        const r = await fetch(endpoint.url, {
          method: 'POST',
          redirect: 'manual',
          signal: AbortSignal.timeout(deps.timeoutMs),
          headers: {
            'content-type': 'application/json',
            'user-agent': 'editor-platform-webhooks/1',
            ...signedHeaders(secrets, input.message.id, now, body),
          },
          body,
        });
        status = r.status;
        response = (await r.text().catch(() => '')).slice(0, RESPONSE_KEPT);
        retryAfterMs = parseRetryAfter(r.headers.get('retry-after'), Date.now());
      } catch (err) {
        error =
          (err as Error).name === 'TimeoutError'
            ? `no answer within ${deps.timeoutMs} ms`
            : `${(err as Error).message}${(err as { cause?: Error }).cause ? `: ${(err as { cause: Error }).cause.message}` : ''}`;
      }
      const latencyMs = Math.round(performance.now() - began);
      const answer = {
        ...(status !== undefined ? { status } : {}),
        ...(error ? { error } : {}),
        latencyMs,
        response,
      };
      if (status !== undefined && status >= 200 && status < 300) {
        await record(input, attempt, endpoint.url, answer, 'delivered');
        return { outcome: 'delivered' };
      }
      if (status === 410) {
        await record(input, attempt, endpoint.url, answer, 'gone');
        await disable(input.integrationId, 'gone', `${endpoint.url} answered 410 Gone`);
        return { outcome: 'gone' };
      }
      await record(input, attempt, endpoint.url, answer, failed);
      const health = await endpointHealth(deps.db, input.integrationId);
      if (
        health.failingSince &&
        now.getTime() - Date.parse(health.failingSince) > DISABLE_AFTER_MS
      ) {
        await disable(
          input.integrationId,
          'failing',
          `every delivery failed since ${health.failingSince}`,
        );
        return { outcome: 'disabled' };
      }
      return { outcome: failed, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    },
  };
}
