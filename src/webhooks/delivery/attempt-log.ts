import type { LeasedDelivery } from '#projections/webhook-leases';
import { deterministicId } from '../../domain/shared/ids.ts';
import {
  type WebhookDeliveryEvent,
  webhookDeliveryEvents,
  webhookDeliveryStream,
} from '../../domain/webhook-delivery/events.ts';
import type { EventStore, NewEvent } from '../../eventstore/port.ts';
import { nextAttemptAt } from '../schedule.ts';
import type { Posted, Target } from './sender.ts';

export type Attempted = Extract<WebhookDeliveryEvent, { type: 'WebhookDeliveryAttempted' }>['data'];

/**
 * What an attempt recorded: delivered (2xx), gone (410), or retrying at its next time
 * (the schedule, or the receiver's Retry-After) until the schedule ends, then failed.
 */
export function attemptOf(
  row: LeasedDelivery,
  target: Target,
  r: Posted,
  at: Date,
  scale: number,
): Attempted {
  let outcome: Attempted['outcome'];
  let next: Date | undefined;
  if (r.status !== undefined && r.status >= 200 && r.status < 300) outcome = 'delivered';
  else if (r.status === 410) outcome = 'gone';
  else {
    next = nextAttemptAt({ deliveryId: row.delivery_id, run: row.run }, row.attempt, at, {
      retryAfterMs: r.retryAfterMs,
      scale,
    });
    outcome = next ? 'retrying' : 'failed';
  }
  return {
    deliveryId: row.delivery_id,
    integrationId: row.integration_id,
    labelId: row.label_id,
    messageId: row.message.id,
    messageType: row.message.type,
    // the label's daily tree head is of no order
    ...('orderId' in row.message.data ? { orderId: row.message.data.orderId } : {}),
    run: row.run,
    attempt: row.attempt,
    url: target.endpoint.url,
    ...(r.status !== undefined ? { status: r.status } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
    latencyMs: r.latencyMs,
    response: r.response,
    outcome,
    attemptedAt: at.toISOString(),
    ...(next ? { nextAttemptAt: next.toISOString() } : {}),
  };
}

interface Pending {
  streamId: string;
  event: NewEvent;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const meta = { actor: 'system:webhooks' };
/** attempts recorded together at most */
const RECORD_BATCH = 500;

/**
 * The record of the attempts: each appended as WebhookDeliveryAttempted to its delivery's
 * stream, in batches (one attempt per delivery stream per batch), with an id derived from
 * the attempt, so the same attempt recorded twice (a lease that ran out) is one event.
 */
export class AttemptLog {
  private readonly pending: Pending[] = [];
  private flushing = false;

  constructor(private readonly store: EventStore) {}

  /** Queues the attempt's record; resolves once it is in the log. */
  record(attempt: Attempted): Promise<void> {
    const event = webhookDeliveryEvents.serialize({
      type: 'WebhookDeliveryAttempted',
      data: attempt,
    });
    return new Promise((resolve, reject) => {
      this.pending.push({
        streamId: webhookDeliveryStream(attempt.deliveryId),
        event: {
          id: deterministicId(`webhook:${attempt.deliveryId}:${attempt.run}:${attempt.attempt}`),
          ...event,
          metadata: { ...meta, labelId: attempt.labelId },
        },
        resolve,
        reject,
      });
      // at once when nothing is being written; what comes meanwhile goes in the next batch
      void this.flush();
    });
  }

  /** Appends what waits, in batches, one attempt per delivery stream per batch. */
  async flush(): Promise<void> {
    if (this.flushing) return; // the flush under way takes the rest
    this.flushing = true;
    try {
      while (this.pending.length > 0) {
        const seen = new Set<string>();
        const now: Pending[] = [];
        const later: Pending[] = [];
        for (const p of this.pending.splice(0, RECORD_BATCH)) {
          if (seen.has(p.streamId)) later.push(p);
          else {
            seen.add(p.streamId);
            now.push(p);
          }
        }
        this.pending.unshift(...later);
        try {
          await this.store.appendEach(now.map(({ streamId, event }) => ({ streamId, event })));
          for (const p of now) p.resolve();
        } catch (err) {
          for (const p of now) p.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
