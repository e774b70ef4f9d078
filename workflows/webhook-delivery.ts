import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../src/activities/index.ts';
import type { WebhookMessage } from '../src/webhooks/messages.ts';
import { delayBefore } from '../src/webhooks/schedule.ts';

/** One attempt is one POST; the schedule's retries are the workflow's, not the activity's. */
const { attemptWebhookDelivery } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 5 },
});

export interface WebhookDeliveryInput {
  deliveryId: string;
  integrationId: string;
  labelId: string;
  message: WebhookMessage;
  /** 0 the first run, then one per resend */
  run: number;
  /** compresses the schedule (1 in production) */
  scale: number;
}

/**
 * One webhook message to one endpoint, on the Standard Webhooks schedule (durable timers:
 * a worker restart or a Temporal outage only delays it). Ends when the receiver took it,
 * answered 410, the endpoint was disabled, or the schedule ran out.
 */
export async function webhookDeliveryWorkflow(
  input: WebhookDeliveryInput,
): Promise<{ outcome: string; attempts: number }> {
  let retryAfterMs: number | undefined;
  for (let attempt = 1; ; attempt++) {
    const wait = delayBefore(attempt, Math.random(), { retryAfterMs, scale: input.scale });
    if (wait === undefined) return { outcome: 'failed', attempts: attempt - 1 };
    if (wait > 0) await sleep(wait);
    const r = await attemptWebhookDelivery(input, attempt);
    if (r.outcome !== 'retrying') return { outcome: r.outcome, attempts: attempt };
    retryAfterMs = r.retryAfterMs;
  }
}
