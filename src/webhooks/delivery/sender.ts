import type pg from 'pg';
import type { LeasedDelivery } from '#projections/webhook-leases';
import { FoldedStates } from '../../app/folded-states.ts';
import { decrypt, ownerKey } from '../../db/encryption-keys.ts';
import {
  type ShopIntegrationState,
  shopIntegrationAggregate,
  type WebhookEndpoint,
} from '../../domain/shop-integration/decider.ts';
import { shopIntegrationStream } from '../../domain/shop-integration/events.ts';
import type { EventStore } from '../../eventstore/port.ts';
import { readBounded } from '../../outgoing/bounded-body.ts';
import { activeTraceparent } from '../../telemetry/tracing.ts';
import { resolvedProblem, type WebhookTargets } from '../address.ts';
import { parseRetryAfter } from '../schedule.ts';
import { signedHeaders } from '../signing.ts';

/*
 * Sending one delivery: where to (the endpoint as it is now, its address checked, its
 * signing secrets), at what pace (an endpoint's rate limit), and the signed POST itself.
 */

/** The active span's traceparent as a header (none when nothing is traced). */
const traceHeader = (): Record<string, string> => {
  const traceparent = activeTraceparent();
  return traceparent ? { traceparent } : {};
};

/** The first characters of an answer kept in the attempt's record. */
const RESPONSE_KEPT = 1024;

export interface Target {
  endpoint: WebhookEndpoint;
  secrets: string[];
  /** why its address is refused */
  problem?: string;
}

export interface Posted {
  status?: number;
  error?: string;
  latencyMs: number;
  response: string;
  /** bytes of the answer's body read (it is read up to a small limit) */
  answerBytes: number;
  retryAfterMs?: number | undefined;
}

/** Endpoints as they are now, read from their integration's stream (cached 5 s). */
export class Targets {
  private readonly integrations = new FoldedStates<ShopIntegrationState>(5_000);

  constructor(private readonly deps: { store: EventStore; db: pg.Pool; targets: WebhookTargets }) {}

  /** An endpoint as it is now: where, and the secrets that sign (undefined: disabled). */
  async of(integrationId: string): Promise<Target | undefined> {
    const { state } = await this.integrations.read(
      this.deps.store,
      shopIntegrationAggregate,
      shopIntegrationStream(integrationId),
    );
    const endpoint = state.exists ? state.webhook : undefined;
    if (!endpoint?.enabled) return undefined;
    const problem = await resolvedProblem(endpoint.url, this.deps.targets).catch(
      (err: Error) => `cannot resolve the host (${err.message})`,
    );
    if (problem) return { endpoint, secrets: [], problem };
    const key = await ownerKey(this.deps.db, integrationId);
    if (!key) throw new Error(`no key for integration ${integrationId}`);
    const now = Date.now();
    const secrets = endpoint.secrets
      .filter((s) => !s.until || Date.parse(s.until) > now)
      .map((s) => String(decrypt(key, s.signing.secret)));
    return { endpoint, secrets };
  }
}

/**
 * Each rate-limited endpoint's next slot (in this process). A slot is taken when its
 * send is due, not booked ahead: timers that fire late (a busy moment) would otherwise
 * send their booked slots in a bunch, more than the rate in a second. Sends stay at
 * least 1/rate apart.
 */
export class Pacer {
  private readonly nextSlot = new Map<string, number>();

  async paced(row: LeasedDelivery): Promise<void> {
    if (!row.rate_per_second) return;
    const gap = 1000 / row.rate_per_second;
    for (;;) {
      const now = performance.now();
      const at = this.nextSlot.get(row.integration_id) ?? now;
      if (at <= now) {
        this.nextSlot.set(row.integration_id, now + gap);
        return;
      }
      await new Promise((r) => setTimeout(r, at - now));
    }
  }
}

/**
 * POSTs the delivery's message, signed (Standard Webhooks), redirects not followed, within
 * `timeoutMs`; the answer is read up to a small limit and its first characters kept.
 */
export async function post(
  row: LeasedDelivery,
  { endpoint, secrets, problem }: Target,
  timeoutMs: number,
): Promise<Posted> {
  if (problem) return { error: problem, latencyMs: 0, response: '', answerBytes: 0 };
  const now = new Date();
  const body = JSON.stringify({
    type: row.message.type,
    timestamp: row.message.timestamp,
    data: row.message.data,
  });
  const began = performance.now();
  try {
    const r = await fetch(endpoint.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'editor-platform-webhooks/1',
        ...signedHeaders(secrets, row.message.id, now, body),
        // the order's trace, for a shop that traces to join (when it was traced)
        ...traceHeader(),
      },
      body,
    });
    // read up to a small limit, then the connection is closed: an endless answer costs nothing
    const answer = await readBounded(r).catch(() => ({ text: '', bytesRead: 0 }));
    return {
      status: r.status,
      latencyMs: Math.round(performance.now() - began),
      response: answer.text.slice(0, RESPONSE_KEPT),
      answerBytes: answer.bytesRead,
      retryAfterMs: parseRetryAfter(r.headers.get('retry-after'), Date.now()),
    };
  } catch (err) {
    const cause = (err as { cause?: Error }).cause;
    return {
      error:
        (err as Error).name === 'TimeoutError'
          ? `no answer within ${timeoutMs} ms`
          : `${(err as Error).message}${cause ? `: ${cause.message}` : ''}`,
      latencyMs: Math.round(performance.now() - began),
      response: '',
      answerBytes: 0,
    };
  }
}
