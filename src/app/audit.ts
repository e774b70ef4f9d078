import {
  auditTreeSize,
  eventLeafHash,
  fromStoredTree,
  leafOfEvent,
  leavesFrom,
  leavesOfEvents,
  storedFacts,
} from '#projections/audit-tree';
import { labelsWithShops } from '#projections/shop-integrations';
import {
  keepHead,
  keepMismatch,
  latestHead,
  publicKeys,
  type TreeHead,
} from '../db/audit-heads.ts';
import { auditHeadAggregate } from '../domain/audit/decider.ts';
import { auditHeadStream } from '../domain/audit/events.ts';
import { consistencyProof, inclusionProof, rootHash } from '../domain/audit/merkle.ts';
import { labelOfOrderStream, orderStream } from '../domain/order/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { type Position, START } from '../eventstore/port.ts';
import { derivedIds, handleCommand } from './command-handler.ts';
import type { AppContext } from './context.ts';

/*
 * The audit log's evidence: signed tree heads, inclusion and consistency proofs (RFC
 * 9162) from the stored tree, and an order's bundle of its events with their proofs.
 */

const hex = (b: Buffer) => b.toString('hex');

/** Signs the tree as it stands now and keeps the head. */
export async function signTreeHead(
  ctx: Pick<AppContext, 'pool' | 'auditSigner'>,
): Promise<TreeHead> {
  const size = await auditTreeSize(ctx.pool);
  const root = await fromStoredTree(ctx.pool, (tree) => rootHash(tree, size));
  const head = ctx.auditSigner.sign({
    treeSize: size,
    rootHash: hex(root),
    timestamp: new Date().toISOString(),
  });
  await keepHead(ctx.pool, ctx.auditSigner, head);
  return head;
}

/** The latest signed head; one is signed now when none covers `atLeast` leaves. */
export async function treeHead(
  ctx: Pick<AppContext, 'pool' | 'auditSigner'>,
  atLeast = 1,
): Promise<TreeHead> {
  const latest = await latestHead(ctx.pool);
  return latest && latest.treeSize >= atLeast ? latest : signTreeHead(ctx);
}

/** Signs a head when the tree grew since the last (the timer of the projector role). */
export async function signWhenGrown(ctx: Pick<AppContext, 'pool' | 'auditSigner'>) {
  const [latest, size] = await Promise.all([latestHead(ctx.pool), auditTreeSize(ctx.pool)]);
  if (size > 0 && (!latest || size > latest.treeSize)) await signTreeHead(ctx);
}

/**
 * The day's tree head for each label with shops that has none for today (UTC) yet: the
 * latest signed head, recorded in the label's `AuditTreeHeads-` stream; the webhook queue
 * and the pull feed take it from the log (`audit.tree_head`). `published` remembers, in
 * this process, the labels done today so a round reads nothing for them; the stream
 * decides anyway, so two projectors or a restart publish a label's day once.
 */
export async function publishDailyTreeHeads(
  ctx: Pick<AppContext, 'pool' | 'auditSigner' | 'store'>,
  published: Map<string, string>,
  now = new Date(),
): Promise<number> {
  const day = now.toISOString().slice(0, 10);
  const labels = (await labelsWithShops(ctx.pool)).filter((l) => published.get(l) !== day);
  if (labels.length === 0 || (await auditTreeSize(ctx.pool)) === 0) return 0;
  const head = await treeHead(ctx);
  let made = 0;
  for (const labelId of labels) {
    const r = await handleCommand(
      ctx.store,
      auditHeadAggregate,
      auditHeadStream(labelId),
      { type: 'PublishTreeHead', labelId, head, at: now },
      { actor: 'system:audit', labelId },
      { eventIds: derivedIds('TreeHeadPublished', labelId, day) },
    );
    if (r.appended) made++;
    published.set(labelId, day);
  }
  return made;
}

export const auditPublicKeys = async (ctx: Pick<AppContext, 'pool' | 'auditSigner'>) => {
  // the key in use is listed from the start, before it signed anything
  const keys = await publicKeys(ctx.pool);
  return keys.some((k) => k.keyId === ctx.auditSigner.keyId)
    ? keys
    : [
        ...keys,
        {
          keyId: ctx.auditSigner.keyId,
          algorithm: 'Ed25519' as const,
          publicKey: ctx.auditSigner.publicKey,
          firstUsedAt: new Date().toISOString(),
        },
      ];
};

/** A size asked for, checked against the tree as it is: 0 < size <= its size. */
async function checkedSize(ctx: Pick<AppContext, 'pool'>, size: number, field: string) {
  const current = await auditTreeSize(ctx.pool);
  if (size < 1 || size > current)
    throw new DomainError(
      'invalid',
      `the tree has ${current} leaves: ${field} must be 1 to ${current}`,
      'invalid_tree_size',
      { field },
    );
  return current;
}

/**
 * An event's inclusion proof in the tree of `treeSize` (the latest signed head's when
 * absent). A label's key finds its own label's events only (404 for any other).
 */
export async function eventInclusion(
  ctx: AppContext,
  labelId: string | undefined,
  eventId: string,
  treeSize?: number,
) {
  const leaf = await leafOfEvent(ctx.pool, eventId);
  const notFound = () =>
    new DomainError('not_found', 'no such event in the audit log', 'event_not_found');
  if (!leaf) throw notFound();
  if (labelId !== undefined && !(await ofLabel(ctx, leaf, labelId))) throw notFound();
  const size = treeSize ?? (await treeHead(ctx, leaf.leafIndex + 1)).treeSize;
  await checkedSize(ctx, size, 'treeSize');
  if (leaf.leafIndex >= size)
    throw new DomainError(
      'invalid',
      `the event is leaf ${leaf.leafIndex}: a tree of ${size} does not hold it yet`,
      'not_in_tree',
      { field: 'treeSize' },
    );
  const proof = await fromStoredTree(ctx.pool, (tree) =>
    inclusionProof(tree, leaf.leafIndex, size),
  );
  return { eventId, leafIndex: leaf.leafIndex, treeSize: size, proof: proof.map(hex) };
}

/** Whether a stored event is the label's: of one of its order streams, or recorded for it. */
async function ofLabel(
  ctx: AppContext,
  leaf: { stream: string; revision: bigint },
  labelId: string,
) {
  if (leaf.stream.startsWith('Order-')) return labelOfOrderStream(leaf.stream) === labelId;
  const [event] = await ctx.store.readStream(leaf.stream, leaf.revision);
  return (event?.metadata as { labelId?: string } | undefined)?.labelId === labelId;
}

/** The consistency proof from the tree of `from` leaves to the tree of `to`. */
export async function treeConsistency(ctx: AppContext, from: number, to: number) {
  await checkedSize(ctx, to, 'to');
  if (from < 1 || from > to)
    throw new DomainError('invalid', `from must be 1 to ${to}`, 'invalid_tree_size', {
      field: 'from',
    });
  const proof = await fromStoredTree(ctx.pool, (tree) => consistencyProof(tree, from, to));
  return { from, to, proof: proof.map(hex) };
}

/**
 * An order's evidence: its events exactly as stored (personal data stays sealed), each
 * with its leaf and its inclusion proof, and the signed head they prove against (one is
 * signed now when the latest does not hold them all yet).
 */
export async function orderAuditBundle(ctx: AppContext, labelId: string, orderId: string) {
  const stream = orderStream(labelId, orderId);
  const events = await ctx.store.readStream(stream);
  if (events.length === 0) throw new DomainError('not_found', 'order not found', 'order_not_found');
  // the tree follows the log: the order's last event is a leaf once it has taken it
  await ctx.readModels.seen('audit-tree', events.at(-1)!.position);
  const leaves = await leavesOfEvents(ctx.pool, events);
  const missing = events.find((e) => !leaves.has(e.id));
  if (missing) throw new Error(`event ${missing.id} is not in the audit tree yet`);
  const leafOf = (id: string) => leaves.get(id) as number;
  const head = await treeHead(ctx, Math.max(0, ...leaves.values()) + 1);
  // every tile the proofs need, in one read
  const proofs = await fromStoredTree(ctx.pool, (tree) =>
    Promise.all(events.map((e) => inclusionProof(tree, leafOf(e.id), head.treeSize))),
  );
  return {
    orderId,
    treeHead: head,
    events: events.map((e, n) => ({
      leafIndex: leafOf(e.id),
      event: storedFacts(e),
      inclusionProof: proofs[n]!.map(hex),
    })),
  };
}

/**
 * The sweep: the stored events, read in the log's order, hashed again and compared with
 * the tree's leaves, a page at a time. An event changed, gone or moved is kept as a
 * mismatch (the metric, the ops overview); serving goes on. Answers where to go on from
 * (0 once it went round the whole tree).
 */
export async function sweepAuditTree(
  ctx: Pick<AppContext, 'pool' | 'store'>,
  from: { leafIndex: number; after: Position },
  pageSize = 1000,
): Promise<{ leafIndex: number; after: Position }> {
  const size = await auditTreeSize(ctx.pool);
  if (from.leafIndex >= size) return { leafIndex: 0, after: START };
  const page = await ctx.store.readAll({ after: from.after, limit: pageSize });
  const leaves = await leavesFrom(ctx.pool, from.leafIndex, page.length || 1);
  let ids: Set<string> | undefined; // the page's events, once one is out of place
  let i = 0;
  for (const leaf of leaves) {
    const event = page[i];
    if (!event) {
      // the log ends before the tree does: the rest of the tree's events are gone
      await keepMismatch(ctx.pool, {
        leafIndex: leaf.leafIndex,
        eventId: leaf.eventId,
        kind: 'missing',
        detail: `leaf ${leaf.leafIndex} is event ${leaf.eventId}, which the log no longer holds`,
      });
      continue;
    }
    if (event.id !== leaf.eventId) {
      // another event here: the leaf's was deleted, or the order of the log changed
      ids ??= new Set(page.map((e) => e.id));
      const gone = !ids.has(leaf.eventId);
      await keepMismatch(ctx.pool, {
        leafIndex: leaf.leafIndex,
        eventId: leaf.eventId,
        kind: gone ? 'missing' : 'moved',
        detail: gone
          ? `leaf ${leaf.leafIndex} is event ${leaf.eventId}, which the log no longer holds`
          : `leaf ${leaf.leafIndex} is event ${leaf.eventId}, but the log has event ${event.id} there`,
      });
      if (gone) continue; // the next leaf is compared with this event
    } else if (!eventLeafHash(event).equals(leaf.hash))
      await keepMismatch(ctx.pool, {
        leafIndex: leaf.leafIndex,
        eventId: leaf.eventId,
        kind: 'changed',
        detail: `event ${leaf.eventId} (${event.type}, ${event.streamId} revision ${event.revision}) no longer hashes to leaf ${leaf.leafIndex}: it was changed after it was recorded`,
      });
    i++;
  }
  const last = page[Math.min(i, page.length) - 1];
  return { leafIndex: from.leafIndex + leaves.length, after: last ? last.position : from.after };
}
