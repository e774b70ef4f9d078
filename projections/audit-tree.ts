import type pg from 'pg';
import { leafHashOfFields, type StoredEventFacts } from '../src/domain/audit/leaf.ts';
import type { Hash, Subtrees } from '../src/domain/audit/merkle.ts';
import {
  BLOCK,
  subtreesOf,
  TILE_SLOTS,
  type Tile,
  TreeEdge,
  tileKey,
  wanted,
} from '../src/domain/audit/tiles.ts';
import { type Position, type RecordedEvent, storedFields } from '../src/eventstore/port.ts';
import { EVERY_EVENT, type Projection } from './projection.ts';

/**
 * The audit log's Merkle tree (RFC 9162): every event, in the log's global order, is a
 * leaf (its hash over the event as stored: src/domain/audit/leaf.ts). Each page of events
 * read is stored as rows of up to a thousand of their leaves' hashes and ids
 * (`audit_leaf_pages`, found by leaf or by the log position of its first event), written
 * once; above the leaves, the tree's tiles (src/domain/audit/tiles.ts). Built as the log
 * is read, in the same transaction as its checkpoint: each event becomes its leaf once,
 * whatever crashes. Never rebuilt: a tree made again from a changed log would agree with
 * the change; this one is the evidence against it. Where the events are not in this database
 * (EventStoreDB), the tree keeps an index of their ids of its own, to find an event's leaf by its
 * id.
 */
export const auditTreeProjection: Projection = {
  name: 'audit-tree',
  neverRebuilt: true,
  tables: ['audit_leaf_pages', 'audit_tiles', 'audit_event_leaves'],
  schema: `
    -- the tree's first layout (a row per leaf and per node) was never released; a tree
    -- in it, and the heads signed over it, start again from the first event
    DO $$ BEGIN
      IF to_regclass('audit_nodes') IS NOT NULL THEN
        DROP TABLE audit_nodes;
        DROP TABLE IF EXISTS audit_leaves, audit_tiles, audit_tile_events, audit_event_leaves;
        DELETE FROM projection_checkpoints WHERE name = 'audit-tree';
        IF to_regclass('audit_tree_heads') IS NOT NULL THEN
          TRUNCATE audit_tree_heads, audit_mismatches;
        END IF;
      END IF;
    END $$;
    CREATE TABLE IF NOT EXISTS audit_leaf_pages (
      first_leaf    bigint PRIMARY KEY,
      size          int NOT NULL,
      first_commit  bigint NOT NULL,
      first_prepare bigint NOT NULL,
      hashes        bytea NOT NULL,
      event_ids     bytea NOT NULL
    );
    CREATE INDEX IF NOT EXISTS audit_leaf_pages_position
      ON audit_leaf_pages (first_commit, first_prepare);
    CREATE TABLE IF NOT EXISTS audit_tiles (
      level      smallint NOT NULL,
      tile_index bigint NOT NULL,
      size       smallint NOT NULL,
      hashes     bytea NOT NULL,
      PRIMARY KEY (level, tile_index)
    );
    CREATE TABLE IF NOT EXISTS audit_event_leaves (
      event_id   uuid PRIMARY KEY,
      leaf_index bigint NOT NULL,
      stream_id  text NOT NULL,
      revision   bigint NOT NULL
    );`,
  handles: EVERY_EVENT,
  // every append wakes it: a page every half second keeps it far under its 2 s of lag
  // and spares the appends a transaction of its own each; a page's statements cost as
  // much as a thousand leaves, so its pages are larger than other projections'
  gatherMs: 500,
  pageSize: 5000,
  // it hashes each event as stored and reads little else of it
  views: true,
  async apply(tx, events) {
    // what this commits is made again from the log should a crash lose it (the checkpoint
    // is lost with it): no need to wait for the disk, which the appends wait for
    await tx.query('SET LOCAL synchronous_commit = off');
    const size = await auditTreeSize(tx);
    const blockStart = size - (size % BLOCK);
    // one statement at a time: the transaction's connection takes no more
    const open = size > blockStart ? await leavesOf(tx, [blockStart]) : new Map<number, Hash>();
    // each level's last tile, an index probe a level (a sort of every tile grew with the tree)
    const tiles = await tx.query<TileRow>(
      `SELECT t.level, t.tile_index::text, t.size, t.hashes FROM generate_series(1, 16) l
       CROSS JOIN LATERAL (SELECT * FROM audit_tiles WHERE level = l
                           ORDER BY tile_index DESC LIMIT 1) t`,
    );
    const local = await eventsHere(tx);
    const openLeaves = Array.from({ length: size - blockStart }, (_, i) =>
      open.get(blockStart + i),
    );
    if (openLeaves.some((h) => !h)) throw new Error(`the audit tree lacks leaves of ${blockStart}`);
    const edge = new TreeEdge(size, openLeaves as Hash[], tiles.rows.map(tileOfRow));
    const hashes = await hashed(events);
    for (let n = 0; n < events.length; n++) edge.append(hashes.subarray(n * HASH, (n + 1) * HASH));
    // stored a thousand leaves a row at most, however large the page: a proof looks an
    // event up in its row's ids. The hashes and ids go as two buffers (sent as bytes; an
    // array of them is sent as hex text, which cost more than the rest of the page).
    const rows = Array.from({ length: Math.ceil(events.length / ROW) }, (_, k) => k * ROW);
    await tx.query(
      `INSERT INTO audit_leaf_pages (first_leaf, size, first_commit, first_prepare, hashes, event_ids)
       SELECT $1::bigint + r.k, least(${ROW}, $2::int - r.k), r.c, r.p,
              substring($5::bytea FROM r.k * ${HASH} + 1 FOR ${ROW * HASH}),
              substring($6::bytea FROM r.k * 16 + 1 FOR ${ROW * 16})
       FROM unnest($7::int[], $3::bigint[], $4::bigint[]) AS r(k, c, p)`,
      [
        size,
        events.length,
        rows.map((k) => events[k]!.position.commit.toString()),
        rows.map((k) => events[k]!.position.prepare.toString()),
        hashes,
        eventIds(events),
        rows,
      ],
    );
    const changed = edge.tiles();
    const slots = TILE_SLOTS * HASH;
    await tx.query(
      `INSERT INTO audit_tiles (level, tile_index, size, hashes)
       SELECT t.level, t.tile_index, t.size, substring($4::bytea FROM (t.n - 1)::int * ${slots} + 1 FOR ${slots})
       FROM unnest($1::smallint[], $2::bigint[], $3::smallint[]) WITH ORDINALITY AS t(level, tile_index, size, n)
       ON CONFLICT (level, tile_index) DO UPDATE SET size = EXCLUDED.size, hashes = EXCLUDED.hashes`,
      [
        changed.map((t) => t.level),
        changed.map((t) => t.index),
        changed.map((t) => t.size),
        Buffer.concat(changed.map((t) => t.hashes)),
      ],
    );
    if (!local)
      await tx.query(
        `INSERT INTO audit_event_leaves (event_id, leaf_index, stream_id, revision)
         SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::bigint[])`,
        [
          events.map((e) => e.id),
          events.map((_, n) => size + n),
          events.map((e) => e.streamId),
          events.map((e) => e.revision.toString()),
        ],
      );
  },
};

const HASH = 32;
/** leaves in a row of audit_leaf_pages at most */
const ROW = 1000;
/** The events' ids, 16 bytes each, one after the other. */
function eventIds(events: RecordedEvent[]): Buffer {
  const ids = Buffer.allocUnsafe(events.length * 16);
  for (const [n, e] of events.entries()) ids.write(e.id.replaceAll('-', ''), n * 16, 16, 'hex');
  return ids;
}
const uuidOf = (b: Buffer) => {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** Whether the events are in this database too (PostgreSQL and PGlite event stores). */
async function eventsHere(db: Pick<pg.Pool, 'query'>): Promise<boolean> {
  const r = await db.query<{ here: boolean }>(
    "SELECT to_regclass('es_events') IS NOT NULL AS here",
  );
  return r.rows[0]!.here;
}

/** The leaves' hashes of a page, made here (leaf.ts), one after the other. */
async function hashed(events: RecordedEvent[]): Promise<Buffer> {
  const hashes = Buffer.allocUnsafe(events.length * HASH);
  for (const [n, e] of events.entries()) {
    // hashing a page is work on the main thread: it lets others in between
    if (n % 256 === 255) await new Promise((r) => setImmediate(r));
    eventLeafHash(e).copy(hashes, n * HASH);
  }
  return hashes;
}

interface TileRow {
  level: number;
  tile_index: string;
  size: number;
  hashes: Buffer;
}
const tileOfRow = (row: TileRow): Tile => ({
  level: row.level,
  index: Number(row.tile_index),
  size: row.size,
  hashes: row.hashes,
});

/** The leaves' hashes of blocks (of 16 leaves, by their first leaf), those the tree holds. */
async function leavesOf(db: Pick<pg.Pool, 'query'>, starts: number[]): Promise<Map<number, Hash>> {
  // each block from the pages it lies in, only its own hashes cut out of them
  const r = await db.query<{ from_leaf: string; hashes: Buffer }>(
    `SELECT greatest(p.first_leaf, b.s)::text AS from_leaf,
       substring(p.hashes FROM (greatest(b.s - p.first_leaf, 0) * ${HASH} + 1)::int
         FOR ((least(b.s + ${BLOCK}, p.first_leaf + p.size) - greatest(b.s, p.first_leaf)) * ${HASH})::int) AS hashes
     FROM unnest($1::bigint[]) AS b(s)
     JOIN LATERAL (
       SELECT first_leaf, size, hashes FROM audit_leaf_pages
       WHERE first_leaf >= coalesce(
         (SELECT max(first_leaf) FROM audit_leaf_pages WHERE first_leaf <= b.s), 0)
         AND first_leaf < b.s + ${BLOCK}
     ) p ON p.first_leaf + p.size > b.s`,
    [starts],
  );
  const leaves = new Map<number, Hash>();
  for (const row of r.rows) {
    const from = Number(row.from_leaf);
    for (let i = 0; i * HASH < row.hashes.length; i++)
      leaves.set(from + i, row.hashes.subarray(i * HASH, (i + 1) * HASH));
  }
  return leaves;
}

/** An event's leaf hash, its fields as the store keeps their text (leaf.ts). */
export const eventLeafHash = (e: RecordedEvent): Hash => leafHashOfFields(storedFields(e));

/** An event as the store hands it out, as its leaf encodes it (leaf.ts). */
export const storedFacts = (e: RecordedEvent): StoredEventFacts => ({
  stream: e.streamId,
  revision: e.revision.toString(),
  id: e.id,
  type: e.type,
  schemaVersion: e.schemaVersion,
  data: e.data,
  metadata: e.metadata,
});

/** The tree's size: how many events are leaves of it. */
export async function auditTreeSize(db: Pick<pg.Pool, 'query'>): Promise<number> {
  const r = await db.query<{ n: string }>(
    'SELECT (first_leaf + size)::text AS n FROM audit_leaf_pages ORDER BY first_leaf DESC LIMIT 1',
  );
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * A computation over the stored tree (a root, proofs), what it reads read in two
 * queries: it runs once on placeholders to learn which tiles and blocks of leaves it
 * asks for, then again on those read.
 */
export async function fromStoredTree<T>(
  db: Pick<pg.Pool, 'query'>,
  compute: (subtrees: Subtrees) => Promise<T>,
): Promise<T> {
  const needs = await wanted(compute);
  // one after the other: a transaction's connection (the projection's) takes no more
  const tiles = await db.query<TileRow>(
    `SELECT t.level, t.tile_index::text, t.size, t.hashes FROM audit_tiles t
     JOIN unnest($1::smallint[], $2::bigint[]) AS w(level, tile_index) USING (level, tile_index)`,
    [needs.tiles.map((w) => w.level), needs.tiles.map((w) => w.index)],
  );
  const leaves = await leavesOf(
    db,
    needs.blocks.map((b) => b * BLOCK),
  );
  const byKey = new Map(
    tiles.rows.map((row) => [tileKey(row.level, Number(row.tile_index)), tileOfRow(row)]),
  );
  return compute(subtreesOf(byKey, leaves));
}

/**
 * The leaves of events as a reader of the log got them (their ids and positions): each
 * found in the page of leaves its position falls in. Those the tree does not hold are
 * left out.
 */
export async function leavesOfEvents(
  db: Pick<pg.Pool, 'query'>,
  events: Pick<RecordedEvent, 'id' | 'position'>[],
): Promise<Map<string, number>> {
  const r = await db.query<{ id: string; leaf: string | null }>(
    `SELECT x.id::text, CASE WHEN o.at > 0 AND (o.at - 1) % 16 = 0
                             THEN p.first_leaf + (o.at - 1) / 16 END::text AS leaf
     FROM unnest($1::uuid[], $2::bigint[], $3::bigint[]) AS x(id, c, pr)
     JOIN LATERAL (
       SELECT first_leaf, event_ids FROM audit_leaf_pages
       WHERE (first_commit, first_prepare) <= (x.c, x.pr)
       ORDER BY first_commit DESC, first_prepare DESC LIMIT 1
     ) p ON true
     CROSS JOIN LATERAL (SELECT position(uuid_send(x.id) IN p.event_ids) AS at) o`,
    [
      events.map((e) => e.id),
      events.map((e) => e.position.commit.toString()),
      events.map((e) => e.position.prepare.toString()),
    ],
  );
  return new Map(r.rows.filter((x) => x.leaf !== null).map((x) => [x.id, Number(x.leaf)] as const));
}

/** Where an event is in the tree: its leaf, its stream and revision. */
export async function leafOfEvent(db: Pick<pg.Pool, 'query'>, eventId: string) {
  let found: { stream: string; revision: bigint; position: Position } | undefined;
  if (await eventsHere(db)) {
    const r = await db.query<{ stream_id: string; revision: string; tx: string; seq: string }>(
      `SELECT stream_id, revision::text, tx_id::text AS tx, seq::text FROM es_events
       WHERE event_id = $1`,
      [eventId],
    );
    const row = r.rows[0];
    if (row)
      found = {
        stream: row.stream_id,
        revision: BigInt(row.revision),
        position: { commit: BigInt(row.tx), prepare: BigInt(row.seq) },
      };
  } else {
    const r = await db.query<{ leaf_index: string; stream_id: string; revision: string }>(
      'SELECT leaf_index::text, stream_id, revision::text FROM audit_event_leaves WHERE event_id = $1',
      [eventId],
    );
    const row = r.rows[0];
    return row
      ? { leafIndex: Number(row.leaf_index), stream: row.stream_id, revision: BigInt(row.revision) }
      : undefined;
  }
  if (!found) return undefined;
  const leafIndex = (await leavesOfEvents(db, [{ id: eventId, position: found.position }])).get(
    eventId,
  );
  return leafIndex === undefined
    ? undefined
    : { leafIndex, stream: found.stream, revision: found.revision };
}

/** The leaves from `from` on (at most `limit`), with their events' ids and their hashes. */
export async function leavesFrom(db: Pick<pg.Pool, 'query'>, from: number, limit: number) {
  const r = await db.query<{ first_leaf: string; hashes: Buffer; event_ids: Buffer }>(
    `SELECT first_leaf::text, hashes, event_ids FROM audit_leaf_pages p
     WHERE first_leaf >= coalesce(
       (SELECT max(first_leaf) FROM audit_leaf_pages WHERE first_leaf <= $1), 0)
       AND first_leaf < $1 + $2
     ORDER BY p.first_leaf`,
    [from, limit],
  );
  const leaves: { leafIndex: number; eventId: string; hash: Buffer }[] = [];
  for (const row of r.rows) {
    const base = Number(row.first_leaf);
    for (let i = 0; i * HASH < row.hashes.length; i++) {
      const leafIndex = base + i;
      if (leafIndex < from || leafIndex >= from + limit) continue;
      leaves.push({
        leafIndex,
        eventId: uuidOf(row.event_ids.subarray(i * 16, (i + 1) * 16)),
        hash: row.hashes.subarray(i * HASH, (i + 1) * HASH),
      });
    }
  }
  return leaves;
}
