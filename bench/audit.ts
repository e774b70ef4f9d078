// npm run bench:audit
// What the audit log's tree costs the appends, and how far it trails them: 8 appenders of
// 1-event batches into the PostgreSQL event store for BENCH_SECONDS (2), with the tree's
// projection following the log (building leaves and subtrees) and without it, A-B-B-A
// BENCH_BLOCKS times (16) in the same run after a round that warms up, each round just
// after a checkpoint, on a throwaway cluster with fsync on. Short rounds, many of them:
// this machine's rate drifts by a third over five to ten seconds (its host's other
// tenants), so rounds as long as that drift compared little but the drift. The ratio is
// printed with the standard error of the blocks' ratios. While the tree runs, the gap
// between the log's head and the tree is sampled every 100 ms (events, and seconds at
// the append rate); after the appends, how long the tree takes to reach the head. Then
// an order-sized bundle: the inclusion proofs of a stream of 200 events from the stored
// tree (what GET /api/orders/{id}/audit-bundle computes), each event in a tile of its own,
// median of 20.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import {
  auditTreeProjection,
  auditTreeSize,
  fromStoredTree,
  leavesOfEvents,
} from '../projections/audit-tree.ts';
import { ProjectionRunner } from '../projections/projection-runner.ts';
import { connectPostgres } from '../src/db/database.ts';
import { inclusionProof } from '../src/domain/audit/merkle.ts';
import type { NewEvent } from '../src/eventstore/port.ts';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';
import { createDatabase, startPostgresCluster } from '../test/helpers/postgres-cluster.ts';
import { figure } from './lib/figures.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const WORKERS = 8;
/** A-B-B-A blocks: one round's rate swings by a fifth on this machine, so many of them */
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 16);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

const newEvent = (): NewEvent => ({
  id: randomUUID(),
  type: 'BenchHappened',
  schemaVersion: 1,
  data: { orderId: randomUUID(), items: [{ sku: 'ABC-123', quantity: 10 }], note: 'x'.repeat(100) },
  metadata: { correlationId: randomUUID(), actor: 'bench' },
});

async function main() {
  const cluster = await startPostgresCluster({ durable: true });
  const db = await connectPostgres(await createDatabase(cluster.url, 'bench'), 24);
  try {
    await PostgresEventStore.migrate(db.pool);
    const store = new PostgresEventStore(db.pool);
    const runner = new ProjectionRunner(
      db.pool,
      store,
      [auditTreeProjection],
      pino({ level: process.env.BENCH_LOG ?? 'silent' }),
      {
        wakeups: store.appended,
      },
    );
    await runner.migrate(db.pool);
    const head = async () =>
      Number(
        (await db.pool.query<{ n: string }>('SELECT count(*)::text AS n FROM es_events')).rows[0]!
          .n,
      );

    let round = 0;
    const appendFor = async (withTree: boolean) => {
      const r = round++;
      const gaps: number[] = [];
      // every round starts just after a checkpoint: one that fell inside some rounds and not
      // others (the log's pages written again in full after it) swung them by a tenth
      await db.pool.query('CHECKPOINT');
      // the log's head as the appenders make it: counting the table while they append
      // would cost the appends more than the tree does
      const base = await head();
      let count = 0;
      let sampling = true;
      // sampled in both rounds, so both pay the same for it
      const sampler = (async () => {
        while (sampling) {
          const size = await auditTreeSize(db.pool);
          if (withTree) gaps.push(base + count - size);
          await new Promise((res) => setTimeout(res, 100));
        }
      })();
      if (withTree) runner.start();
      const end = Date.now() + SECONDS * 1000;
      const began = performance.now();
      await Promise.all(
        Array.from({ length: WORKERS }, async (_, w) => {
          for (let i = 0; Date.now() < end; i++) {
            await store.append(`Bench-${r}-${w}-${i}`, [newEvent()], 'no_stream');
            count++;
          }
        }),
      );
      const perSecond = count / ((performance.now() - began) / 1000);
      sampling = false;
      await sampler;
      let catchUpMs = 0;
      if (withTree) {
        const t0 = performance.now();
        while ((await auditTreeSize(db.pool)) < (await head()))
          await new Promise((res) => setTimeout(res, 10));
        catchUpMs = performance.now() - t0;
        await runner.stop();
      } else {
        // the tree catches up on what it did not follow, before the next round
        runner.start();
        while ((await auditTreeSize(db.pool)) < (await head()))
          await new Promise((res) => setTimeout(res, 50));
        await runner.stop();
      }
      return { perSecond, gaps, catchUpMs };
    };

    console.log(
      `appends, ${WORKERS} appenders of 1-event batches, ${SECONDS} s a round, A-B-B-A ${BLOCKS} times, fsync on`,
    );
    // a round first that counts for neither: the first round warms the process and the
    // cluster up, and was always the slowest
    await appendFor(false);
    type Round = { withTree: boolean } & Awaited<ReturnType<typeof appendFor>>;
    const rounds: Round[] = [];
    const blockRatios: number[] = [];
    for (let b = 0; b < BLOCKS; b++) {
      const block: Round[] = [];
      for (const withTree of [false, true, true, false]) {
        const one = await appendFor(withTree);
        block.push({ withTree, ...one });
      }
      const rate = (w: boolean) =>
        mean(block.filter((x) => x.withTree === w).map((x) => x.perSecond));
      blockRatios.push(rate(true) / rate(false));
      if (process.env.BENCH_VERBOSE)
        console.log(
          `  block ${b + 1}: without ${block
            .filter((x) => !x.withTree)
            .map((x) => x.perSecond.toFixed(0))
            .join(', ')}; with ${block
            .filter((x) => x.withTree)
            .map((x) => x.perSecond.toFixed(0))
            .join(', ')} appends/s; ratio ${blockRatios.at(-1)!.toFixed(3)}`,
        );
      rounds.push(...block);
    }
    const without = mean(rounds.filter((x) => !x.withTree).map((x) => x.perSecond));
    const withTree = mean(rounds.filter((x) => x.withTree).map((x) => x.perSecond));
    const followed = rounds.filter((x) => x.withTree);
    const gaps = followed.flatMap((x) => x.gaps).sort((x, y) => x - y);
    const maxGap = gaps.at(-1) ?? 0;
    const p50Gap = gaps[Math.floor(gaps.length / 2)] ?? 0;
    const sortedRatios = [...blockRatios].sort((x, y) => x - y);
    const blockMean = mean(blockRatios);
    const stderr = Math.sqrt(
      blockRatios.reduce((a, r) => a + (r - blockMean) ** 2, 0) /
        (blockRatios.length - 1) /
        blockRatios.length,
    );
    figure('audit.tree_ratio', withTree / without);
    figure('audit.tree_behind_s', maxGap / withTree);
    console.log(
      `  without the tree: ${without.toFixed(0)} appends/s; with it: ${withTree.toFixed(0)} appends/s; ratio ${(withTree / without).toFixed(3)} (goal >= 0.95); the blocks' ratios: mean ${blockMean.toFixed(3)} +/- ${stderr.toFixed(3)} (standard error), median ${sortedRatios[Math.floor(sortedRatios.length / 2)]!.toFixed(3)}, from ${sortedRatios[0]!.toFixed(3)} to ${sortedRatios.at(-1)!.toFixed(3)}`,
    );
    console.log(
      `  the tree behind the head: p50 ${p50Gap} events (${(p50Gap / withTree).toFixed(3)} s), max ${maxGap} events (${(maxGap / withTree).toFixed(3)} s) (goal < 2 s); caught up ${Math.max(...followed.map((x) => x.catchUpMs)).toFixed(0)} ms after the last append`,
    );

    // an order of 200 events, each in a bottom tile of its own (256 other events between
    // any two of them, as in a busy log): its bundle's proofs from the stored tree
    const stream = `Order-bench-${randomUUID()}`;
    for (let i = 0; i < 200; i++) {
      await store.append(stream, [newEvent()], i === 0 ? 'no_stream' : BigInt(i - 1));
      await store.append(
        `Other-${randomUUID()}`,
        Array.from({ length: 256 }, newEvent),
        'no_stream',
      );
    }
    runner.start();
    while ((await auditTreeSize(db.pool)) < (await head()))
      await new Promise((res) => setTimeout(res, 20));
    await runner.stop();
    const size = await auditTreeSize(db.pool);
    const times: number[] = [];
    for (let k = 0; k < 20; k++) {
      const t0 = performance.now();
      const events = await store.readStream(stream);
      const leaves = await leavesOfEvents(db.pool, events);
      await fromStoredTree(db.pool, (tree) =>
        Promise.all(events.map((e) => inclusionProof(tree, leaves.get(e.id)!, size))),
      );
      times.push(performance.now() - t0);
    }
    times.sort((x, y) => x - y);
    figure('audit.bundle_ms', times[10]!);
    console.log(
      `  a bundle of 200 events in a tree of ${size}: median ${times[10]!.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms (goal < 50 ms)`,
    );
  } finally {
    await db.close();
    cluster.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
