import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditTreeProjection,
  auditTreeSize,
  fromStoredTree,
  leafOfEvent,
  leavesFrom,
  leavesOfEvents,
  storedFacts,
} from '../../projections/audit-tree.ts';
import { ProjectionRunner } from '../../projections/projection-runner.ts';
import { leafBytes } from '../../src/domain/audit/leaf.ts';
import { inMemory, leafHash, rootHash } from '../../src/domain/audit/merkle.ts';
import {
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  START,
} from '../../src/eventstore/port.ts';
import { until } from '../helpers/orders.ts';

export interface TreeUnderTest {
  store: EventStore;
  /** where the read models (the tree) live */
  pool: pg.Pool;
  cleanup(): Promise<void>;
}

const ev = (type: string, data: Record<string, unknown>): NewEvent => ({
  id: randomUUID(),
  type,
  schemaVersion: 1,
  data,
  metadata: { correlationId: randomUUID(), actor: 'contract' },
});

async function wholeLog(store: EventStore): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (let after = START; ; ) {
    const page = await store.readAll({ after, limit: 500 });
    all.push(...page);
    if (page.length < 500) return all;
    after = page.at(-1)!.position;
  }
}

/**
 * The audit tree follows the log's global order on every event store: single appends,
 * appends of several events, appends racing on many connections; each event is the leaf
 * at its place in the order a reader of all events sees, and the stored tree's root is
 * the root of those leaves made from scratch.
 */
export function auditTreeContract(name: string, open: () => Promise<TreeUnderTest>) {
  describe(`audit tree contract: ${name}`, () => {
    let t: TreeUnderTest;
    let runner: ProjectionRunner;
    beforeAll(async () => {
      t = await open();
      runner = new ProjectionRunner(
        t.pool,
        t.store,
        [auditTreeProjection],
        pino({ level: 'silent' }),
        {
          batchSize: 300,
        },
      );
      await runner.migrate();
      runner.start();
    }, 60_000);
    afterAll(async () => {
      await runner?.stop();
      await t?.cleanup();
    });

    it('makes each event the leaf at its place in the global order', async () => {
      const streams = Array.from({ length: 12 }, () => `Audit-${randomUUID()}`);
      for (const [n, s] of streams.entries())
        await t.store.append(
          s,
          Array.from({ length: 1 + (n % 4) }, (_, k) => ev('Happened', { n, k, text: 'é\u0000"' })),
          'no_stream',
        );
      // racing appends, one event each and several, over ten tiles' width in all (tile
      // 10 sorts before tile 9 as text)
      await Promise.all(
        Array.from({ length: 100 }, (_, n) =>
          t.store.append(
            streams[n % streams.length]!,
            Array.from({ length: 1 + (n % 7) * 10 }, () => ev('Raced', { n })),
            'any',
          ),
        ),
      );
      const appended =
        streams.reduce((sum, _, n) => sum + 1 + (n % 4), 0) +
        Array.from({ length: 100 }, (_, n) => 1 + (n % 7) * 10).reduce((a, b) => a + b, 0);
      // an append that resolved is not yet visible to every reader: a reader of all events
      // sees only those below the cluster's snapshot horizon, which other transactions (the
      // tree's own, in its database) can hold back for a moment. Wait to see them all.
      const log = await until(
        `all ${appended} appended events visible to a reader of the whole log`,
        async () => {
          const whole = await wholeLog(t.store);
          return whole.length >= appended ? whole : undefined;
        },
        60_000,
      );
      expect(log.length).toBe(appended);
      expect(log.length).toBeGreaterThan(11 * 256);
      const size = await until(
        'the tree to hold the whole log',
        async () => {
          const n = await auditTreeSize(t.pool);
          return n >= log.length ? n : undefined;
        },
        60_000,
      );
      expect(size).toBe(log.length);
      const leaves = await leavesOfEvents(t.pool, log);
      expect(log.map((e) => leaves.get(e.id))).toEqual(log.map((_, i) => i));
      // each leaf names its event (what the sweep walks), over many pages of leaves
      const named = await leavesFrom(t.pool, 0, size);
      expect(named.map((l) => l.eventId)).toEqual(log.map((e) => e.id));
      // by its id alone, as GET /api/audit/inclusion finds it
      for (const i of [0, 17, size - 1])
        expect(await leafOfEvent(t.pool, log[i]!.id)).toEqual({
          leafIndex: i,
          stream: log[i]!.streamId,
          revision: log[i]!.revision,
        });
      expect(await leafOfEvent(t.pool, randomUUID())).toBeUndefined();
      const scratch = inMemory(log.map((e) => leafHash(leafBytes(storedFacts(e)))));
      for (const n of [1, 255, 256, 257, 2816, size]) {
        const stored = await fromStoredTree(t.pool, (tree) => rootHash(tree, n));
        expect(stored.toString('hex'), `the root of ${n}`).toBe(
          (await rootHash(scratch, n)).toString('hex'),
        );
      }
    }, 120_000);
  });
}
