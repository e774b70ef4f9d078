import { listLabels } from '#projections/labels';
import { lateCounts } from '#projections/order-production';
import { ORDER_STATUSES, type OrderStatus, orderCounts } from '#projections/orders';
import { type EndpointRow, listEndpoints } from '#projections/webhooks';
import { mismatches } from '../db/audit-heads.ts';
import type { Poller } from '../temporal/pollers.ts';
import type { AppContext } from './context.ts';
import { type Runners, type SubscriptionView, subscriptionStatus } from './subscriptions.ts';

export type StatusCounts = Record<OrderStatus, number> & { overdue: number; total: number };

export interface LabelCounts {
  labelId: string;
  name: string;
  counts: StatusCounts;
}

export interface Overview {
  /** per label, by name; only the viewer's own label for a label admin */
  labels: LabelCounts[];
  totals: StatusCounts;
  oldestUnfinished: Date | undefined;
  subscriptions: SubscriptionView[];
  /** the workers polling the task queue; a string says why they could not be asked */
  pollers: Poller[] | string;
  /** webhook endpoints and their health, failing ones first */
  webhooks: EndpointRow[];
  /** orders not shipped by their ship-by time, per label and stage */
  late: { labelId: string; stage: string; count: number }[];
  /** events that no longer hash to their leaf of the audit tree, and the first of them */
  audit: Awaited<ReturnType<typeof mismatches>>;
}

const zero = (): StatusCounts => ({
  ...(Object.fromEntries(ORDER_STATUSES.map((s) => [s, 0])) as Record<OrderStatus, number>),
  overdue: 0,
  total: 0,
});

/**
 * What an operator looks at first: orders per label and status, overdue ones, the
 * oldest unfinished order, the projections' and reactors' lag and parked events,
 * whether any worker takes work, and which shops' webhooks fail.
 */
export async function operationsOverview(
  ctx: AppContext,
  sources: {
    labelId?: string | undefined;
    runners: Runners;
    pollers: (() => Promise<Poller[]>) | undefined;
  },
): Promise<Overview> {
  const [labels, counts, subscriptions, pollers, webhooks, late, audit] = await Promise.all([
    listLabels(ctx.pool, sources.labelId),
    orderCounts(ctx.pool, sources.labelId),
    subscriptionStatus(sources.runners),
    sources.pollers
      ? sources.pollers().catch(() => 'Temporal does not answer')
      : Promise.resolve('no Temporal client in this process'),
    listEndpoints(ctx.pool, sources.labelId),
    lateCounts(ctx.pool, sources.labelId),
    mismatches(ctx.pool),
  ]);
  const byLabel = new Map(
    labels.map((l) => [l.label_id, { labelId: l.label_id, name: l.name, counts: zero() }]),
  );
  const totals = zero();
  for (const row of counts.byStatus) {
    const label = byLabel.get(row.labelId);
    for (const c of label ? [label.counts, totals] : [totals]) {
      c[row.status] += row.count;
      c.total += row.count;
    }
  }
  for (const [labelId, n] of counts.overdueByLabel) {
    const label = byLabel.get(labelId);
    if (label) label.counts.overdue = n;
  }
  totals.overdue = counts.overdue;
  return {
    labels: [...byLabel.values()],
    totals,
    oldestUnfinished: counts.oldestUnfinished,
    subscriptions,
    pollers,
    webhooks,
    late,
    audit,
  };
}
