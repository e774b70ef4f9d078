import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditTreeSize,
  fromStoredTree,
  leavesFrom,
  storedFacts,
} from '../../projections/audit-tree.ts';
import { leafBytes } from '../../src/domain/audit/leaf.ts';
import {
  consistencyProof,
  inclusionProof,
  inMemory,
  leafHash,
  rootHash,
  type Subtrees,
  verifyConsistency,
  verifyInclusion,
} from '../../src/domain/audit/merkle.ts';
import { type RecordedEvent, START } from '../../src/eventstore/port.ts';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { newIntegration, newLabel, settled } from '../helpers/fixtures.ts';
import { until } from '../helpers/orders.ts';

/** Every event of the log, in its global order, as a reader of all events gets it. */
async function wholeLog(t: TestApp): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (let after = START; ; ) {
    const page = await t.app.store.readAll({ after, limit: 1000 });
    all.push(...page);
    if (page.length < 1000) return all;
    after = page.at(-1)!.position;
  }
}

const leafOf = (e: RecordedEvent) => leafHash(leafBytes(storedFacts(e)));

/**
 * The audit tree as the projection builds it, against a from-scratch computation over
 * the whole log, with the real PostgreSQL: the same size and root, and proofs from its
 * stored nodes that verify.
 */
describe('the audit tree', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.stop());

  /** the tree once it holds `n` leaves (it follows the log a moment later) */
  const treeOf = (n: number) =>
    until('the audit tree to reach the log', async () => {
      const size = await auditTreeSize(t.app.db.pool);
      return size >= n ? size : undefined;
    });

  it('has every event of the log as a leaf, in its order, and proves them', async () => {
    const call = client(t.url);
    // events of several streams and types, some appended in the same transaction
    for (let i = 0; i < 5; i++) {
      const label = await newLabel(call, t, `Audit ${i}`);
      await newIntegration(call, t, label.adminApiKey, i % 2 === 0);
    }
    await settled(t);
    const log = await wholeLog(t);
    const stored = <T>(compute: (tree: Subtrees) => Promise<T>) =>
      fromStoredTree(t.app.db.pool, compute);
    const size = await treeOf(log.length);
    expect(size).toBe(log.length);
    expect(size).toBeGreaterThan(10);
    // each leaf names its event, in the log's order (what the sweep walks)
    const leaves = await leavesFrom(t.app.db.pool, 0, size);
    expect(leaves.map((l) => l.eventId)).toEqual(log.map((e) => e.id));
    expect(leaves.map((l) => l.leafIndex)).toEqual(log.map((_, i) => i));
    const scratch = inMemory(log.map(leafOf));
    const root = await stored((tree) => rootHash(tree, size));
    expect(root.toString('hex')).toBe((await rootHash(scratch, size)).toString('hex'));
    for (const m of [0, 1, Math.floor(size / 2), size - 1]) {
      const proof = await stored((tree) => inclusionProof(tree, m, size));
      expect(verifyInclusion(leafOf(log[m]!), m, size, proof, root)).toBe(true);
    }
    // a later tree extends this one
    const label = await newLabel(call, t, 'Audit later');
    await newIntegration(call, t, label.adminApiKey, false);
    await settled(t);
    const later = await treeOf((await wholeLog(t)).length);
    expect(later).toBeGreaterThan(size);
    const proof = await stored((tree) => consistencyProof(tree, size, later));
    const laterRoot = await stored((tree) => rootHash(tree, later));
    expect(verifyConsistency(size, later, proof, root, laterRoot)).toBe(true);
  });
});
