import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Span } from '@opentelemetry/api';
import type pg from 'pg';
import type { Logger } from 'pino';
import {
  freeLeasesOfGoneProcesses,
  type LeasedDelivery,
  leaseDue,
  queueCheckpoint,
} from '#projections/webhook-leases';
import type { ChangeFeed } from '../../db/change-feed.ts';
import { comparePositions, type EventStore } from '../../eventstore/port.ts';
import { describeError, positionOf } from '../../subscriptions/parked.ts';
import { followingEvent } from '../../telemetry/tracing.ts';
import type { WebhookTargets } from '../address.ts';
import { type ProofLinkMaker, withProofLinks } from '../messages.ts';
import { AttemptLog, attemptOf } from './attempt-log.ts';
import { disableEndpoint, disableWhenFailingLong } from './disabling.ts';
import { Pacer, post, type Target, Targets } from './sender.ts';

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
  observe?: (outcome: string, seconds: number, answerBytes: number) => void;
  /** deliveries in flight at once in this process, over all endpoints (default 256) */
  maxInFlight?: number;
  /** adds each approver's link to a proof's messages as they leave (never stored) */
  proofLinks?: ProofLinkMaker;
}

/** the longest sleep with nothing due (a row due in between wakes it by its time) */
const IDLE_MS = 1_000;
/** the shortest time between two claims while there is work */
const CLAIM_GAP_MS = 10;

/** A wait until the next row falls due, 5 ms to IDLE_MS (PostgreSQL's numeric comes as a string) */
const idleFor = (ms: number | string | null | undefined) =>
  ms === null || ms === undefined ? IDLE_MS : Math.max(5, Math.min(IDLE_MS, Number(ms)));
const NOTHING_CLAIMED = { rows: [] as LeasedDelivery[], nextDueMs: IDLE_MS };
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
  private wakeUp: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly targets: Targets;
  private readonly pacer = new Pacer();
  private readonly attempts: AttemptLog;
  /** this dispatcher, in the leases it takes */
  private readonly id = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  /** delivery runs this process ended and recorded, until the queue has surely read them */
  private readonly settled = new Map<string, number>();
  /** deliveries being sent by this process, by endpoint */
  private readonly sending = new Map<string, number>();
  private readonly cap: number;
  private readonly leaseMs: number;
  /** false until the queue has read the log up to where it was at start */
  private caughtUp = false;
  lastError: string | undefined;

  constructor(private readonly deps: DispatcherDeps) {
    this.cap = deps.maxInFlight ?? 256;
    // long enough for the POST, the record and the queue's projection of it
    this.leaseMs = deps.timeoutMs + 60_000;
    this.targets = new Targets(deps);
    this.attempts = new AttemptLog(deps.store);
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
    await this.attempts.flush();
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
    await this.untilDone(async () => {
      const freed = await freeLeasesOfGoneProcesses(this.deps.db, this.id);
      if (freed > 0)
        this.deps.log.info(
          { leases: freed },
          'freed the webhook leases of processes that are gone',
        );
    });
    while (!this.stopped) {
      try {
        if (!this.caughtUp) {
          // a queue read from the first event (its first build) holds, for a moment, rows
          // of deliveries made long ago whose attempts it has not read yet
          const at = await queueCheckpoint(this.deps.db);
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
            target = this.targets.of(row.integration_id);
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

  /** Leases up to `room` due rows (see leaseDue), counting them as being sent here. */
  private async claim(room: number): Promise<{ rows: LeasedDelivery[]; nextDueMs: number }> {
    const { rows, ms } = await leaseDue(this.deps.db, {
      room,
      leaseMs: this.leaseMs,
      by: this.id,
      sending: this.sending,
      settled: this.settledRuns(),
    });
    for (const row of rows)
      this.sending.set(row.integration_id, (this.sending.get(row.integration_id) ?? 0) + 1);
    return { rows, nextDueMs: idleFor(ms) };
  }

  private settledRuns(): string[] {
    const now = Date.now();
    for (const [k, until] of this.settled) if (until < now) this.settled.delete(k);
    return [...this.settled.keys()];
  }

  private send(row: LeasedDelivery, target: Promise<Target | undefined>): void {
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

  /** An attempt in a span of the trace of the event the message tells of (when traced). */
  private attempt(row: LeasedDelivery, target: Promise<Target | undefined>): Promise<void> {
    return followingEvent(
      row.traceparent,
      `webhook ${row.message.type}`,
      { 'webhook.delivery': row.delivery_id, 'webhook.attempt': row.attempt },
      (span) => this.attemptNow(row, target, span),
    );
  }

  private async attemptNow(
    row: LeasedDelivery,
    target: Promise<Target | undefined>,
    span: Span | undefined,
  ): Promise<void> {
    const t = await target;
    // disabled meanwhile: the queue drops its rows from the log
    if (!t) return;
    await this.pacer.paced(row);
    const links = this.deps.proofLinks;
    const message = links ? withProofLinks(row.message, row.label_id, links) : row.message;
    const r = await post({ ...row, message }, t, this.deps.timeoutMs);
    const attempt = attemptOf(row, t, r, new Date(), this.deps.scale);
    const { outcome } = attempt;
    span?.setAttributes({
      'server.address': new URL(t.endpoint.url).host,
      'webhook.outcome': outcome,
      ...(r.status !== undefined ? { 'http.response.status_code': r.status } : {}),
    });
    const at = new Date(attempt.attemptedAt);
    await this.attempts.record(attempt);
    // ended and recorded: an ordered endpoint's next message need not wait for the queue
    // to read the record
    if (row.ordered && outcome !== 'retrying')
      this.settled.set(`${row.delivery_id}:${row.run}`, Date.now() + this.leaseMs);
    this.deps.observe?.(outcome, r.latencyMs / 1000, r.answerBytes);
    if (outcome === 'gone')
      await disableEndpoint(
        this.deps.store,
        row.integration_id,
        'gone',
        `${t.endpoint.url} answered 410 Gone`,
      );
    else if (outcome !== 'delivered')
      await disableWhenFailingLong(this.deps, row.integration_id, at);
  }
}
