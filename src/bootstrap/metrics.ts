import type pg from 'pg';
import { facilityMetrics } from '#projections/facilities';
import { itemsPerStage, lateCounts } from '#projections/order-production';
import { ORDER_STATUSES, orderCounts } from '#projections/orders';
import { deliveryBacklog } from '#projections/webhooks';
import type { Runners } from '../app/subscriptions.ts';
import { mismatches } from '../db/audit-heads.ts';
import { PRODUCTION_STAGES } from '../domain/order/events.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Poller } from '../temporal/pollers.ts';

type FacilityMetric = Awaited<ReturnType<typeof facilityMetrics>>[number];

export interface MetricSources {
  /** the read models: orders by status, oldest unfinished, overdue (the API role) */
  orders?: pg.Pool | undefined;
  /** the runners this process reports on: lag and parked events */
  runners: Runners;
  /** the workers polling the task queue (where there is a Temporal client) */
  pollers?: (() => Promise<Poller[]>) | undefined;
  /** the transactions this process has ended on its database */
  transactions: () => number;
}

/** One read for all the gauges of a scrape: the same promise for a second. */
function shared<T>(read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), value: read() };
    return last.value;
  };
}

/**
 * The gauges a role can read, read when scraped. A gauge read from the database shows
 * the same in every process that reports it: aggregate with max.
 */
export function registerGauges(metrics: Metrics, sources: MetricSources): void {
  const { orders, runners, pollers, transactions } = sources;
  metrics.counter(
    'db_transactions_total',
    'Transactions this process ended on its database (a statement outside BEGIN and COMMIT is one)',
    transactions,
  );
  if (orders) {
    const counts = shared(() => orderCounts(orders));
    metrics.gauge('orders', 'Orders by status', ['status'], async () => {
      const c = await counts();
      return ORDER_STATUSES.map((status) => ({
        labels: { status },
        value: c.byStatus.filter((r) => r.status === status).reduce((n, r) => n + r.count, 0),
      }));
    });
    metrics.gauge(
      'oldest_unfinished_order_age_seconds',
      'Age of the oldest order still received or rendering; 0 when none',
      [],
      async () => {
        const oldest = (await counts()).oldestUnfinished;
        return [{ labels: {}, value: oldest ? (Date.now() - oldest.getTime()) / 1000 : 0 }];
      },
    );
    metrics.gauge(
      'overdue_orders',
      'Orders past their render deadline and not ready (cancelled ones aside)',
      [],
      async () => [{ labels: {}, value: (await counts()).overdue }],
    );
    const stages = shared(() => itemsPerStage(orders));
    metrics.gauge('items_by_stage', 'Order items per production stage', ['stage'], async () => {
      const n = await stages();
      return PRODUCTION_STAGES.map((stage) => ({ labels: { stage }, value: n.get(stage) ?? 0 }));
    });
    metrics.gauge(
      'audit_mismatches',
      'Events that no longer hash to their leaf of the audit tree (changed, gone or moved since they were recorded)',
      [],
      async () => [{ labels: {}, value: (await mismatches(orders)).count }],
    );
    const perFacility = shared(() => facilityMetrics(orders));
    const facilityGauge = (name: string, help: string, value: (f: FacilityMetric) => number) =>
      metrics.gauge(name, help, ['label', 'facility'], async () =>
        (await perFacility()).map((f) => ({
          labels: { label: f.labelId, facility: f.facilityId },
          value: value(f),
        })),
      );
    facilityGauge('facility_items_routed', 'Order items routed to each facility', (f) => f.routed);
    facilityGauge(
      'facility_capacity_used_today',
      "Share of a facility's items a day taken by items routed to today (its time zone); above 1 past capacity",
      (f) => f.capacityUsedToday,
    );
    facilityGauge(
      'facility_items_late',
      "A facility's items not shipped whose order is past its ship-by time",
      (f) => f.late,
    );
    metrics.gauge(
      'late_orders',
      'Orders past their ship-by time and not shipped (cancelled ones aside), per label',
      ['label'],
      async () => {
        const perLabel = new Map<string, number>();
        for (const r of await lateCounts(orders))
          perLabel.set(r.labelId, (perLabel.get(r.labelId) ?? 0) + r.count);
        return [...perLabel].map(([label, value]) => ({ labels: { label }, value }));
      },
    );
    const backlog = shared(() => deliveryBacklog(orders));
    metrics.gauge(
      'webhook_oldest_undelivered_age_seconds',
      'Age of the oldest webhook delivery not yet delivered (retrying or failed); 0 when none',
      [],
      async () => {
        const oldest = (await backlog()).oldestUndeliveredAt;
        return [{ labels: {}, value: oldest ? (Date.now() - oldest.getTime()) / 1000 : 0 }];
      },
    );
    metrics.gauge(
      'webhook_failing_endpoints',
      'Webhook endpoints whose last delivery attempt failed',
      [],
      async () => [{ labels: {}, value: (await backlog()).failingEndpoints }],
    );
  }
  const status = shared(async () => (await Promise.all(runners.map((r) => r.status()))).flat());
  metrics.gauge(
    'subscription_lag_events',
    'Events a projection or reactor has yet to take (counted up to 100000)',
    ['subscription', 'kind'],
    async () =>
      (await status()).map((s) => ({
        labels: { subscription: s.name, kind: s.kind },
        value: s.behind,
      })),
  );
  metrics.gauge(
    'subscription_lag_seconds',
    'Age of the oldest event a projection or reactor has yet to take',
    ['subscription', 'kind'],
    async () =>
      (await status()).map((s) => ({
        labels: { subscription: s.name, kind: s.kind },
        value: s.lagSeconds,
      })),
  );
  metrics.gauge(
    'parked_events',
    'Events a projection or reactor set aside after failing on them repeatedly',
    ['subscription', 'kind'],
    async () =>
      (await status()).map((s) => ({
        labels: { subscription: s.name, kind: s.kind },
        value: s.parked,
      })),
  );
  if (pollers)
    metrics.gauge(
      'task_queue_pollers',
      'Workers that polled the task queue in the last 90 s (any process)',
      [],
      async () => [{ labels: {}, value: (await pollers()).length }],
    );
}
