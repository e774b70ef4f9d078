import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import type { Logger } from 'pino';
import { endpointHealth } from '#projections/webhooks';
import { handleCommand } from '../app/command-handler.ts';
import { FoldedStates } from '../app/folded-states.ts';
import type { ChangeFeed } from '../db/change-feed.ts';
import { decrypt, ownerKey } from '../db/encryption-keys.ts';
import { deterministicId } from '../domain/shared/ids.ts';
import {
  type ShopIntegrationState,
  shopIntegrationAggregate,
  type WebhookEndpoint,
} from '../domain/shop-integration/decider.ts';
import { shopIntegrationStream } from '../domain/shop-integration/events.ts';
import {
  type WebhookDeliveryEvent,
  webhookDeliveryEvents,
  webhookDeliveryStream,
} from '../domain/webhook-delivery/events.ts';
import { comparePositions, type EventStore, type NewEvent } from '../eventstore/port.ts';
import { readBounded } from '../outgoing/bounded-body.ts';
import { processAlive } from '../processes.ts';
import { describeError, positionOf } from '../subscriptions/parked.ts';
import { resolvedProblem, type WebhookTargets } from '../webhooks/address.ts';
import type { WebhookMessage } from '../webhooks/messages.ts';
import { DISABLE_AFTER_MS, nextAttemptAt, parseRetryAfter } from '../webhooks/schedule.ts';
import { signedHeaders } from '../webhooks/signing.ts';

export interface DispatcherDeps {
  store: EventStore;
  db: pg.Pool;
  changes: ChangeFeed;
  targets: WebhookTargets;
  /** how long one POST may take */
  timeoutMs: number;
  /** compresses the retry schedule (1 in production) */
  scale: number;
  log: Logger;
  /** told each attempt's outcome */
  observe?: (outcome: string, seconds: number) => void;
  /** deliveries in flight at once in this process, over all endpoints (default 256) */
  maxInFlight?: number;
}

/** One leased delivery: a message to an endpoint, and which attempt this is. */
interface Leased {
  delivery_id: string;
  run: number;
  integration_id: string;
  label_id: string;
  message: WebhookMessage;
  attempt: number;
  rate_per_second: number | null;
  ordered: boolean;
}

interface Target {
  endpoint: WebhookEndpoint;
  secrets: string[];
  /** why its address is refused */
  problem?: string;
}

interface Pending {
  streamId: string;
  event: NewEvent;
  resolve: () => void;
  reject: (err: unknown) => void;
}

type Attempted = Extract<WebhookDeliveryEvent, { type: 'WebhookDeliveryAttempted' }>['data'];

const RESPONSE_KEPT = 1024;
const meta = { actor: 'system:webhooks' };
/** rows looked at per claim, before each endpoint's share is taken */
const LOOK_AHEAD = 2_000;
/** the longest sleep with nothing due (a row due in between wakes it by its time) */
const IDLE_MS = 1_000;
/** the shortest time between two claims while there is work */
const CLAIM_GAP_MS = 10;

/**
 * A wait until the next row falls due (none: IDLE_MS), at least 5 ms and at most
 * IDLE_MS; PostgreSQL's extract gives a numeric, which comes as a string.
 */
const idleFor = (ms: number | string | null | undefined) =>
  ms === null || ms === undefined ? IDLE_MS : Math.max(5, Math.min(IDLE_MS, Number(ms)));
const NOTHING_CLAIMED = { rows: [] as Leased[], nextDueMs: IDLE_MS };
/** attempts recorded together at most */
const RECORD_BATCH = 500;

/**
 * Sends the queued webhook deliveries (projections/webhook-queue.ts): leases what is due,
 * each endpoint its share (no more in flight than its `maxInFlight`, counted over every
 * process; one at a time, in log order, when `ordered`; at most `ratePerSecond`), POSTs
 * them side by side, and records the attempts in batches. Nothing here changes the queue
 * but the lease: the recorded attempts do, through the log. A process that dies leaves
 * its leases to run out; what it sent but did not record is sent again, with the same
 * webhook-id. No endpoint waits for another: a slow one holds only its own share.
 */
export class WebhookDispatcher {
  private stopped = false;
  private inFlight = 0;
  private readonly running = new Set<Promise<void>>();
  private readonly pending: Pending[] = [];
  private flushing = false;
  private wakeUp: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly integrations = new FoldedStates<ShopIntegrationState>(5_000);
  /** this dispatcher, in the leases it takes */
  private readonly id = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  /** delivery runs this process ended and recorded, until the queue has surely read them */
  private readonly settled = new Map<string, number>();
  /** deliveries being sent by this process, by endpoint */
  private readonly sending = new Map<string, number>();
  /** when each rate-limited endpoint may be sent to next (this process) */
  private readonly nextSlot = new Map<string, number>();
  private readonly cap: number;
  private readonly leaseMs: number;
  /** false until the queue has read the log up to where it was at start */
  private caughtUp = false;
  lastError: string | undefined;

  constructor(private readonly deps: DispatcherDeps) {
    this.cap = deps.maxInFlight ?? 256;
    // long enough for the POST, the record and the queue's projection of it
    this.leaseMs = deps.timeoutMs + 60_000;
  }

  start(): void {
    this.unsubscribe = this.deps.changes.subscribe((c) => {
      // a commit under way shows nothing yet: its end (here, or another process's) does
      const queueChanged =
        c.kind === 'readModel' && c.projection === 'webhook-queue' && c.phase !== 'committing';
      if (queueChanged || c.kind === 'unknown') this.wake();
    });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wake();
    await this.loop;
    await Promise.allSettled([...this.running]);
    await this.flush();
  }

  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = undefined;
    w?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private async run(): Promise<void> {
    const startedAt = await this.untilDone(() => this.deps.store.headPosition());
    await this.untilDone(() => this.releaseDeadLeases());
    while (!this.stopped) {
      try {
        if (!this.caughtUp) {
          // a queue read from the first event (its first build) holds, for a moment, rows
          // of deliveries made long ago whose attempts it has not read yet
          const r = await this.deps.db.query<{ commit: string; prepare: string }>(
            `SELECT commit_pos::text AS commit, prepare_pos::text AS prepare
             FROM projection_checkpoints WHERE name = 'webhook-queue'`,
          );
          const at = r.rows[0];
          this.caughtUp = !!at && comparePositions(positionOf(at), startedAt) >= 0;
          if (!this.caughtUp) {
            await this.sleep(200);
            continue;
          }
        }
        const room = this.cap - this.inFlight;
        const { rows, nextDueMs } = room > 0 ? await this.claim(room) : NOTHING_CLAIMED;
        this.lastError = undefined;
        // each endpoint read once a round: its state, its key and its address checked
        const targets = new Map<string, Promise<Target | undefined>>();
        for (const row of rows) {
          let target = targets.get(row.integration_id);
          if (!target) {
            target = this.target(row.integration_id);
            targets.set(row.integration_id, target);
          }
          this.send(row, target);
        }
        // a claim is one query however many rows it takes: a full one is followed by the
        // next after a moment (or once half the room is free), not after each attempt's
        // end; after one that took all it could, the next row falls due by its time, or a
        // change of the queue (a new row, an attempt recorded) wakes the loop sooner
        if (rows.length >= room) await this.sleep(CLAIM_GAP_MS);
        else await this.sleep(nextDueMs);
      } catch (err) {
        this.lastError = describeError(err);
        this.deps.log.warn({ error: this.lastError }, 'webhook dispatch failed; trying again');
        await this.sleep(1000);
      }
    }
  }

  /**
   * Leases taken by processes of this host that are gone (killed, crashed) are freed at
   * once, not when they run out: what they were sending goes out again now, with the
   * same webhook-id.
   */
  private async releaseDeadLeases(): Promise<void> {
    const r = await this.deps.db.query<{ by: string }>(
      `SELECT DISTINCT leased_by AS by FROM webhook_queue
       WHERE leased_until IS NOT NULL AND leased_until >= now() AND leased_by LIKE $1`,
      [`${hostname()}-%`],
    );
    const gone = r.rows
      .map((x) => x.by)
      .filter((by) => {
        const pid = Number(by.slice(hostname().length + 1).split('-')[0]);
        return by !== this.id && Number.isInteger(pid) && !processAlive(pid);
      });
    if (gone.length === 0) return;
    await this.deps.db.query(
      `UPDATE webhook_queue SET leased_until = NULL, leased_by = NULL WHERE leased_by = ANY($1)`,
      [gone],
    );
    this.deps.log.info(
      { leases: gone.length },
      'freed the webhook leases of processes that are gone',
    );
  }

  private async untilDone<T>(f: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await f();
      } catch (err) {
        this.lastError = describeError(err);
        if (this.stopped) throw err;
        await this.sleep(1000);
      }
    }
  }

  /**
   * Leases up to `room` due rows, each endpoint at most its free share: `maxInFlight`
   * minus its leased rows (ordered: its oldest row alone, once nothing of it is leased);
   * a rate-limited endpoint at most a second's worth. Also how long until the next row
   * it did not take falls due (at most IDLE_MS), read in the same query.
   */
  private async claim(room: number): Promise<{ rows: Leased[]; nextDueMs: number }> {
    const r = await this.deps.db.query<{ rows: Leased[]; ms: string | null }>(
      `WITH due AS (
         SELECT delivery_id, run, integration_id, commit_pos, prepare_pos, due_at FROM webhook_queue
         WHERE due_at <= now() AND (leased_until IS NULL OR leased_until < now())
         ORDER BY due_at LIMIT ${LOOK_AHEAD}
       ), mine AS (
         SELECT * FROM unnest($4::uuid[], $5::int[]) AS m(integration_id, n)
       ), busy AS (
         -- what other processes have leased, and what this one is sending (its leases of
         -- attempts already recorded are not busy: the queue just has not read them yet)
         SELECT integration_id, sum(n) AS n FROM (
           SELECT integration_id, count(*) AS n FROM webhook_queue
           WHERE leased_until IS NOT NULL AND leased_until >= now() AND leased_by <> $3
             AND integration_id IN (SELECT integration_id FROM due)
           GROUP BY integration_id
           UNION ALL SELECT integration_id, n FROM mine) b
         GROUP BY integration_id
       ), ranked AS (
         SELECT d.delivery_id, d.run, d.due_at, e.ordered, d.integration_id, d.commit_pos,
           d.prepare_pos,
           row_number() OVER (PARTITION BY d.integration_id
                              ORDER BY d.commit_pos, d.prepare_pos) AS n,
           CASE WHEN e.ordered THEN 1
                ELSE LEAST(e.max_in_flight, COALESCE(ceil(e.rate_per_second)::int, e.max_in_flight))
           END - COALESCE(b.n, 0) AS share
         FROM due d JOIN webhook_queue_endpoints e USING (integration_id)
         LEFT JOIN busy b USING (integration_id)
         WHERE e.enabled
       ), picked AS (
         SELECT q.delivery_id, q.run FROM webhook_queue q
         JOIN ranked k ON k.delivery_id = q.delivery_id AND k.run = q.run
         WHERE k.n <= k.share
           AND (NOT k.ordered OR NOT EXISTS (
             SELECT 1 FROM webhook_queue o WHERE o.integration_id = k.integration_id
               AND (o.commit_pos, o.prepare_pos) < (k.commit_pos, k.prepare_pos)
               AND o.delivery_id || ':' || o.run <> ALL($6::text[])))
         ORDER BY k.due_at LIMIT $1
         FOR UPDATE OF q SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_queue q SET leased_until = now() + $2 * interval '1 millisecond',
           leased_by = $3
         FROM picked p, webhook_queue_endpoints e
         WHERE q.delivery_id = p.delivery_id AND q.run = p.run AND e.integration_id = q.integration_id
           AND (q.leased_until IS NULL OR q.leased_until < now())
         RETURNING q.delivery_id, q.run, q.integration_id, q.label_id, q.message, q.attempt,
           e.rate_per_second, e.ordered
       )
       -- when the next row not leased now falls due (this query's own leases are not seen
       -- in its snapshot: its rows are left out by name)
       SELECT COALESCE((SELECT json_agg(c) FROM claimed c), '[]'::json) AS rows,
         (SELECT extract(epoch FROM min(GREATEST(due_at, COALESCE(leased_until, due_at))) - now()) * 1000
          FROM webhook_queue w
          WHERE NOT EXISTS (SELECT 1 FROM claimed c
                            WHERE c.delivery_id = w.delivery_id AND c.run = w.run)) AS ms`,
      [
        room,
        this.leaseMs,
        this.id,
        [...this.sending.keys()],
        [...this.sending.values()],
        this.settledRuns(),
      ],
    );
    const { rows, ms } = r.rows[0]!;
    for (const row of rows)
      this.sending.set(row.integration_id, (this.sending.get(row.integration_id) ?? 0) + 1);
    return { rows, nextDueMs: idleFor(ms) };
  }

  private settledRuns(): string[] {
    const now = Date.now();
    for (const [k, until] of this.settled) if (until < now) this.settled.delete(k);
    return [...this.settled.keys()];
  }

  /** An endpoint as it is now: where, and the secrets that sign (undefined: disabled). */
  private async target(integrationId: string): Promise<Target | undefined> {
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

  private send(row: Leased, target: Promise<Target | undefined>): void {
    this.inFlight++;
    const p = this.attempt(row, target)
      .catch((err) =>
        // its lease runs out and it is tried again
        this.deps.log.warn(
          { deliveryId: row.delivery_id, error: describeError(err) },
          'webhook attempt not recorded',
        ),
      )
      .finally(() => {
        this.inFlight--;
        const n = (this.sending.get(row.integration_id) ?? 1) - 1;
        if (n > 0) this.sending.set(row.integration_id, n);
        else this.sending.delete(row.integration_id);
        this.running.delete(p);
        if (this.inFlight <= this.cap / 2) this.wake();
      });
    this.running.add(p);
  }

  /**
   * Waits for the endpoint's next slot under its rate limit (in this process). A slot is
   * taken when its send is due, not booked ahead: timers that fire late (a busy moment)
   * would otherwise send their booked slots in a bunch, more than the rate in a second.
   * Sends stay at least 1/rate apart.
   */
  private async paced(row: Leased): Promise<void> {
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

  private async attempt(row: Leased, target: Promise<Target | undefined>): Promise<void> {
    const t = await target;
    // disabled meanwhile: the queue drops its rows from the log
    if (!t) return;
    const { endpoint } = t;
    await this.paced(row);
    const r = await this.post(row, t);
    const at = new Date();
    let outcome: Attempted['outcome'];
    let next: Date | undefined;
    if (r.status !== undefined && r.status >= 200 && r.status < 300) outcome = 'delivered';
    else if (r.status === 410) outcome = 'gone';
    else {
      next = nextAttemptAt({ deliveryId: row.delivery_id, run: row.run }, row.attempt, at, {
        retryAfterMs: r.retryAfterMs,
        scale: this.deps.scale,
      });
      outcome = next ? 'retrying' : 'failed';
    }
    const attempt: Attempted = {
      deliveryId: row.delivery_id,
      integrationId: row.integration_id,
      labelId: row.label_id,
      messageId: row.message.id,
      messageType: row.message.type,
      orderId: row.message.data.orderId,
      run: row.run,
      attempt: row.attempt,
      url: endpoint.url,
      ...(r.status !== undefined ? { status: r.status } : {}),
      ...(r.error !== undefined ? { error: r.error } : {}),
      latencyMs: r.latencyMs,
      response: r.response,
      outcome,
      attemptedAt: at.toISOString(),
      ...(next ? { nextAttemptAt: next.toISOString() } : {}),
    };
    await this.record(attempt);
    // ended and recorded: an ordered endpoint's next message need not wait for the queue
    // to read the record
    if (row.ordered && outcome !== 'retrying')
      this.settled.set(`${row.delivery_id}:${row.run}`, Date.now() + this.leaseMs);
    this.deps.observe?.(outcome, r.latencyMs / 1000);
    if (outcome === 'gone')
      await this.disable(row.integration_id, 'gone', `${endpoint.url} answered 410 Gone`);
    else if (outcome !== 'delivered') await this.disableWhenFailingLong(row.integration_id, at);
  }

  private async post(
    row: Leased,
    { endpoint, secrets, problem }: Target,
  ): Promise<{
    status?: number;
    error?: string;
    latencyMs: number;
    response: string;
    retryAfterMs?: number | undefined;
  }> {
    if (problem) return { error: problem, latencyMs: 0, response: '' };
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
        signal: AbortSignal.timeout(this.deps.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'editor-platform-webhooks/1',
          ...signedHeaders(secrets, row.message.id, now, body),
        },
        body,
      });
      // read up to a small limit, then the connection is closed: an endless answer costs nothing
      const response = (await readBounded(r).catch(() => ({ text: '' }))).text.slice(
        0,
        RESPONSE_KEPT,
      );
      return {
        status: r.status,
        latencyMs: Math.round(performance.now() - began),
        response,
        retryAfterMs: parseRetryAfter(r.headers.get('retry-after'), Date.now()),
      };
    } catch (err) {
      const cause = (err as { cause?: Error }).cause;
      return {
        error:
          (err as Error).name === 'TimeoutError'
            ? `no answer within ${this.deps.timeoutMs} ms`
            : `${(err as Error).message}${cause ? `: ${cause.message}` : ''}`,
        latencyMs: Math.round(performance.now() - began),
        response: '',
      };
    }
  }

  /** Queues the attempt's record; resolves once it is in the log. */
  private record(attempt: Attempted): Promise<void> {
    const event = webhookDeliveryEvents.serialize({
      type: 'WebhookDeliveryAttempted',
      data: attempt,
    });
    return new Promise((resolve, reject) => {
      this.pending.push({
        streamId: webhookDeliveryStream(attempt.deliveryId),
        // the same attempt recorded twice (a lease that ran out) is one event
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
  private async flush(): Promise<void> {
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
          await this.deps.store.appendEach(now.map(({ streamId, event }) => ({ streamId, event })));
          for (const p of now) p.resolve();
        } catch (err) {
          for (const p of now) p.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private disable(integrationId: string, reason: 'gone' | 'failing', detail: string) {
    return handleCommand(
      this.deps.store,
      shopIntegrationAggregate,
      shopIntegrationStream(integrationId),
      { type: 'DisableWebhookEndpoint', labelId: undefined, reason, detail, at: new Date() },
      meta,
    );
  }

  /** An endpoint that has failed every delivery for five days is disabled. */
  private async disableWhenFailingLong(integrationId: string, at: Date): Promise<void> {
    const health = await endpointHealth(this.deps.db, integrationId);
    if (health.failingSince && at.getTime() - Date.parse(health.failingSince) > DISABLE_AFTER_MS)
      await this.disable(
        integrationId,
        'failing',
        `every delivery failed since ${health.failingSince}`,
      );
  }
}
