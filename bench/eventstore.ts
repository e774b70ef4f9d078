// npm run bench:eventstore
// Appends/s of the PostgreSQL event store adapter next to plain INSERTs into an
// equivalent table on the same server in the same run, and projection catch-up over
// 100k events next to reading the same events without projecting them.
// Uses BENCH_DATABASE_URL when set, else a throwaway cluster with fsync ON (durable
// commits, like production), so the ratios compare like with like.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { ProjectionRunner } from '../projections/projection-runner.ts';
import { shopIntegrationsProjection } from '../projections/shop-integrations.ts';
import { connectPostgres } from '../src/db/database.ts';
import { shopIntegrationEvents } from '../src/domain/shop-integration/events.ts';
import { type NewEvent, START } from '../src/eventstore/port.ts';
import { PostgresEventStore } from '../src/eventstore/postgres.ts';
import { createDatabase, startPostgresCluster } from '../test/helpers/postgres-cluster.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CATCHUP_EVENTS = Number(process.env.BENCH_CATCHUP_EVENTS ?? 100_000);

const PLAIN_TABLE = `
CREATE TABLE plain_events (
  seq bigserial PRIMARY KEY, event_id uuid NOT NULL UNIQUE, stream_id text NOT NULL,
  revision bigint NOT NULL, type text NOT NULL, schema_version integer NOT NULL,
  data json NOT NULL, metadata json NOT NULL, recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (stream_id, revision))`;

const payload = () => ({
  orderId: randomUUID(),
  items: [{ sku: 'ABC-123', quantity: 10 }],
  note: 'x'.repeat(100),
});
const newEvent = (): NewEvent => ({
  id: randomUUID(),
  type: 'BenchHappened',
  schemaVersion: 1,
  data: payload(),
  metadata: { correlationId: randomUUID(), actor: 'bench' },
});

/** Runs `workers` loops of `op` for SECONDS; returns operations per second. */
async function rate(
  workers: number,
  op: (worker: number, i: number) => Promise<void>,
): Promise<number> {
  const end = Date.now() + SECONDS * 1000;
  let count = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      for (let i = 0; Date.now() < end; i++) {
        await op(w, i);
        count++;
      }
    }),
  );
  return count / ((performance.now() - began) / 1000);
}

async function main() {
  const cluster = process.env.BENCH_DATABASE_URL
    ? undefined
    : await startPostgresCluster({ durable: true });
  const server = process.env.BENCH_DATABASE_URL ?? cluster!.url;
  const db = await connectPostgres(await createDatabase(server, 'bench'), 16);
  try {
    await PostgresEventStore.migrate(db.pool);
    await db.pool.query(PLAIN_TABLE);
    const store = new PostgresEventStore(db.pool);

    console.log(
      `append throughput, 2 x ${SECONDS} s per side and case (A-B-B-A), fsync ${cluster ? 'on (throwaway cluster)' : 'as the server has it'}`,
    );
    console.log(
      'case                      | adapter appends/s | plain INSERTs/s | ratio | adapter events/s',
    );
    const rows: string[] = [];
    for (const workers of [1, 8]) {
      for (const batch of [1, 10]) {
        const tag = randomUUID().slice(0, 8);
        let round = 0;
        const adapterOnce = () => {
          const r = round++;
          return rate(workers, async (w, i) => {
            const events = Array.from({ length: batch }, newEvent);
            await store.append(`Bench-${tag}-${r}-${w}-${i}`, events, 'no_stream');
          });
        };
        const plainOnce = () => {
          const r = round++;
          return rate(workers, async (w, i) => {
            const events = Array.from({ length: batch }, newEvent);
            const values: unknown[] = [];
            const tuples = events.map((e, k) => {
              values.push(
                e.id,
                `Plain-${tag}-${r}-${w}-${i}`,
                k,
                e.type,
                1,
                JSON.stringify(e.data),
                JSON.stringify(e.metadata),
              );
              const b = k * 7;
              return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}::json, $${b + 7}::json)`;
            });
            await db.pool.query(
              `INSERT INTO plain_events (event_id, stream_id, revision, type, schema_version, data, metadata) VALUES ${tuples.join(', ')}`,
              values,
            );
          });
        };
        // A-B-B-A order, averaged, so drift of the server (WAL, checkpoints) hits both sides
        const a1 = await adapterOnce();
        const p1 = await plainOnce();
        const p2 = await plainOnce();
        const a2 = await adapterOnce();
        const adapter = (a1 + a2) / 2;
        const plain = (p1 + p2) / 2;
        const name = `${workers} appender${workers > 1 ? 's' : ''}, ${batch}-event batch`.padEnd(
          25,
        );
        const line = `${name} | ${adapter.toFixed(0).padStart(17)} | ${plain.toFixed(0).padStart(15)} | ${(adapter / plain).toFixed(2).padStart(5)} | ${(adapter * batch).toFixed(0).padStart(16)}`;
        rows.push(line);
        console.log(line);
      }
    }

    // catch-up: a real projection (shop integrations) over CATCHUP_EVENTS events
    await db.pool.query('TRUNCATE es_events');
    const per = 5; // created + 4 updates per integration
    const integrations = Math.ceil(CATCHUP_EVENTS / per);
    const label = randomUUID();
    const seed = Array.from({ length: integrations }, (_, n) => n);
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let n = w; n < seed.length; n += 8) {
          const id = randomUUID();
          const at = new Date().toISOString();
          const events = [
            shopIntegrationEvents.serialize({
              type: 'ShopIntegrationCreated',
              data: {
                integrationId: id,
                labelId: label,
                name: `Shop ${n}`,
                shopSystem: 'bench',
                shopUrl: 'https://bench.example',
                apiKey: { prefix: 'ep_int_bench000', sha256: '0'.repeat(64) },
                createdAt: at,
              },
            }),
            ...Array.from({ length: per - 1 }, (_, k) =>
              shopIntegrationEvents.serialize({
                type: 'ShopIntegrationUpdated',
                data: { integrationId: id, changes: { name: `Shop ${n} v${k}` }, updatedAt: at },
              }),
            ),
          ];
          await store.append(
            `ShopIntegration-${id}`,
            events.map((e) => ({ ...e, id: randomUUID(), metadata: {} })),
            'no_stream',
          );
        }
      }),
    );
    const total = integrations * per;

    let began = performance.now();
    let read = 0;
    for (let after = START; ; ) {
      const page = await store.readAll({ after, limit: 1000 });
      if (page.length === 0) break;
      read += page.length;
      after = page[page.length - 1]!.position;
    }
    const readRate = read / ((performance.now() - began) / 1000);

    const runner = new ProjectionRunner(
      db.pool,
      store,
      [shopIntegrationsProjection],
      pino({ level: 'silent' }),
    );
    await runner.migrate();
    began = performance.now();
    await runner.catchUp('shop-integrations');
    const catchUpRate = total / ((performance.now() - began) / 1000);
    const projected = Number(
      (await db.pool.query('SELECT count(*) AS n FROM rm_shop_integrations')).rows[0].n,
    );
    if (projected !== integrations) throw new Error(`projected ${projected} of ${integrations}`);

    console.log(
      `\nprojection catch-up over ${total} events (shop-integrations, 1000 events per transaction)`,
    );
    console.log(`read all without projecting : ${readRate.toFixed(0)} events/s`);
    console.log(
      `catch-up                    : ${catchUpRate.toFixed(0)} events/s  (ratio ${(catchUpRate / readRate).toFixed(2)})`,
    );
  } finally {
    await db.close();
    cluster?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
