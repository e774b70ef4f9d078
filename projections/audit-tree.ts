import type pg from 'pg';
import { leafBytes, type StoredEventFacts } from '../src/domain/audit/leaf.ts';
import { type Hash, leafHash, nodeHash, type Subtrees } from '../src/domain/audit/merkle.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import { EVERY_EVENT, type Projection } from './projection.ts';

/**
 * The audit log's Merkle tree (RFC 9162): every event, in the log's global order, is a
 * leaf (its hash over the event as stored: src/domain/audit/leaf.ts), and every complete,
 * aligned subtree's hash is kept (`audit_nodes`, level 0 the leaves), so a root or a proof
 * of any size takes O(log n) reads. Built as the log is read, in the same transaction as
 * its checkpoint: each event becomes its leaf once, whatever crashes. Never rebuilt: a
 * tree made again from a changed log would agree with the change; this one is the
 * evidence against it.
 */
export const auditTreeProjection: Projection = {
  name: 'audit-tree',
  neverRebuilt: true,
  tables: ['audit_leaves', 'audit_nodes'],
  schema: `
    CREATE TABLE IF NOT EXISTS audit_leaves (
      leaf_index bigint PRIMARY KEY,
      event_id   uuid NOT NULL UNIQUE,
      stream_id  text NOT NULL,
      revision   bigint NOT NULL
    );
    CREATE INDEX IF NOT EXISTS audit_leaves_stream ON audit_leaves (stream_id, revision);
    CREATE TABLE IF NOT EXISTS audit_nodes (
      level      smallint NOT NULL,
      node_index bigint NOT NULL,
      hash       bytea NOT NULL,
      PRIMARY KEY (level, node_index)
    );`,
  handles: EVERY_EVENT,
  // every append wakes it: a page a quarter of a second keeps it far under its 2 s of lag
  // and spares the appends a transaction of its own each
  gatherMs: 250,
  async apply(tx, events) {
    // what this commits is made again from the log should a crash lose it (the checkpoint
    // is lost with it): no need to wait for the disk, which the appends wait for
    await tx.query('SET LOCAL synchronous_commit = off');
    const r = await tx.query<{ n: string }>(
      'SELECT coalesce(max(leaf_index) + 1, 0)::text AS n FROM audit_leaves',
    );
    let size = Number(r.rows[0]!.n);
    const made = new Map<string, Hash>();
    const nodes: { level: number; index: number; hash: Hash }[] = [];
    // a left sibling: made in this batch, or on the tree's right edge before it
    const sibling = async (level: number, index: number): Promise<Hash> => {
      const kept = made.get(`${level}:${index}`);
      if (kept) return kept;
      const row = await tx.query<{ hash: Buffer }>(
        'SELECT hash FROM audit_nodes WHERE level = $1 AND node_index = $2',
        [level, index],
      );
      if (!row.rows[0]) throw new Error(`the audit tree lacks node ${level}:${index}`);
      return row.rows[0].hash;
    };
    const leaves: { index: number; id: string; stream: string; revision: string }[] = [];
    for (const [n, e] of events.entries()) {
      // hashing a page is work on the main thread: it lets others in between
      if (n % 64 === 63) await new Promise((r) => setImmediate(r));
      const revision = e.revision.toString();
      let hash = leafHash(leafBytes(storedFacts(e)));
      leaves.push({ index: size, id: e.id, stream: e.streamId, revision });
      // the leaf, then each subtree it completes
      for (let level = 0, index = size; ; level++, index = Math.floor(index / 2)) {
        made.set(`${level}:${index}`, hash);
        nodes.push({ level, index, hash });
        if (index % 2 === 0) break;
        hash = nodeHash(await sibling(level, index - 1), hash);
      }
      size++;
    }
    await tx.query(
      `INSERT INTO audit_leaves (leaf_index, event_id, stream_id, revision)
       SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::bigint[])`,
      [
        leaves.map((l) => l.index),
        leaves.map((l) => l.id),
        leaves.map((l) => l.stream),
        leaves.map((l) => l.revision),
      ],
    );
    await tx.query(
      `INSERT INTO audit_nodes (level, node_index, hash)
       SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])`,
      [nodes.map((n) => n.level), nodes.map((n) => n.index), nodes.map((n) => n.hash)],
    );
  },
};

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
    'SELECT coalesce(max(leaf_index) + 1, 0)::text AS n FROM audit_leaves',
  );
  return Number(r.rows[0]!.n);
}

/**
 * The stored subtrees a computation needs, read in one query: the computation runs once
 * on placeholders to learn which it asks for, then again on the hashes read.
 */
export async function prefetchedSubtrees(
  db: Pick<pg.Pool, 'query'>,
  compute: (subtrees: Subtrees) => Promise<unknown>,
): Promise<Subtrees> {
  const wanted = new Map<string, [number, number]>();
  const placeholder = Buffer.alloc(32);
  await compute((level, index) => {
    wanted.set(`${level}:${index}`, [level, index]);
    return placeholder;
  });
  const keys = [...wanted.values()];
  const r = await db.query<{ level: number; node_index: string; hash: Buffer }>(
    `SELECT n.level, n.node_index::text, n.hash FROM audit_nodes n
     JOIN unnest($1::smallint[], $2::bigint[]) AS w(level, node_index) USING (level, node_index)`,
    [keys.map((k) => k[0]), keys.map((k) => k[1])],
  );
  const got = new Map(r.rows.map((x) => [`${x.level}:${x.node_index}`, x.hash]));
  return (level, index) => {
    const h = got.get(`${level}:${index}`);
    if (!h) throw new Error(`the audit tree has no node ${level}:${index}`);
    return h;
  };
}

/** The stored subtrees, for roots and proofs (merkle.ts). */
export const storedSubtrees =
  (db: Pick<pg.Pool, 'query'>): Subtrees =>
  async (level, index) => {
    const r = await db.query<{ hash: Buffer }>(
      'SELECT hash FROM audit_nodes WHERE level = $1 AND node_index = $2',
      [level, index],
    );
    if (!r.rows[0]) throw new Error(`the audit tree has no node ${level}:${index}`);
    return r.rows[0].hash;
  };

/** Where an event is in the tree: its leaf, its stream and revision. */
export async function leafOfEvent(db: Pick<pg.Pool, 'query'>, eventId: string) {
  const r = await db.query<{ leaf_index: string; stream_id: string; revision: string }>(
    'SELECT leaf_index, stream_id, revision FROM audit_leaves WHERE event_id = $1',
    [eventId],
  );
  const row = r.rows[0];
  return row
    ? { leafIndex: Number(row.leaf_index), stream: row.stream_id, revision: BigInt(row.revision) }
    : undefined;
}

/** The leaves of a stream's events, by event id. */
export async function leavesOfStream(db: Pick<pg.Pool, 'query'>, stream: string) {
  const r = await db.query<{ event_id: string; leaf_index: string }>(
    'SELECT event_id, leaf_index FROM audit_leaves WHERE stream_id = $1',
    [stream],
  );
  return new Map(r.rows.map((x) => [x.event_id, Number(x.leaf_index)]));
}

/** The leaves from `from` on, with their events' places and their hashes. */
export async function leavesFrom(db: Pick<pg.Pool, 'query'>, from: number, limit: number) {
  const r = await db.query<{
    leaf_index: string;
    event_id: string;
    stream_id: string;
    revision: string;
    hash: Buffer;
  }>(
    `SELECT l.leaf_index, l.event_id, l.stream_id, l.revision, n.hash
     FROM audit_leaves l JOIN audit_nodes n ON n.level = 0 AND n.node_index = l.leaf_index
     WHERE l.leaf_index >= $1 ORDER BY l.leaf_index LIMIT $2`,
    [from, limit],
  );
  return r.rows.map((x) => ({
    leafIndex: Number(x.leaf_index),
    eventId: x.event_id,
    stream: x.stream_id,
    revision: BigInt(x.revision),
    hash: x.hash,
  }));
}
