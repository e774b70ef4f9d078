import {
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type LabelValues,
  Registry,
} from 'prom-client';

export const PREFIX = 'editor_platform_';

/** A gauge's value, asked for when scraped. */
export type Sample<L extends string> = { labels: LabelValues<L>; value: number };

/**
 * The service's metrics, on a registry of their own (one per started app, so tests that
 * start several in one process keep theirs apart). Counters count what this process did;
 * gauges are read from the read models and runners when scraped.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'HTTP requests by route (the pattern, not the path), method and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly ordersReceived = new Counter({
    name: `${PREFIX}orders_received_total`,
    help: 'Sale notifications recorded as new orders',
    registers: [this.registry],
  });

  readonly itemsRendered = new Counter({
    name: `${PREFIX}order_items_rendered_total`,
    help: 'Print files recorded for order items',
    registers: [this.registry],
  });

  readonly itemsFailed = new Counter({
    name: `${PREFIX}order_items_failed_total`,
    help: 'Order items that could not be rendered, by kind of failure',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly orderWorkflowStarts = new Counter({
    name: `${PREFIX}order_workflow_starts_total`,
    help: "Order workflows started, by where their first task went: 'handed_over' to this process's worker in the start's answer, or 'queued' through the task queue",
    labelNames: ['first_task'] as const,
    registers: [this.registry],
  });

  readonly rendersAhead = new Counter({
    name: `${PREFIX}renders_ahead_total`,
    help: "Print files rendered ahead of their activity (on a render slot free when the order was read from the log), by outcome: 'taken' by the activity, or 'unclaimed' (the order changed meanwhile, or no activity came within 30 s)",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: `${PREFIX}webhook_deliveries_total`,
    help: 'Webhook delivery attempts by outcome (delivered, retrying, failed, gone)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookAnswerBytes = new Counter({
    name: `${PREFIX}webhook_answer_bytes_read_total`,
    help: "Bytes of webhook receivers' answers read by the deliveries (each answer is read up to 64 KiB and one chunk, then its connection is closed)",
    registers: [this.registry],
  });

  readonly renderDuration = new Histogram({
    name: `${PREFIX}render_duration_seconds`,
    help: "Rendering one order item's print file (images, barcode, PDF, preview)",
    labelNames: ['outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [this.registry],
  });

  readonly stageReached = new Histogram({
    name: `${PREFIX}order_stage_reached_seconds`,
    help: "Time from an order's receipt to each production stage an item reached, per label",
    labelNames: ['label', 'stage'] as const,
    buckets: [60, 300, 900, 3600, 4 * 3600, 12 * 3600, 86_400, 2 * 86_400, 3 * 86_400, 7 * 86_400],
    registers: [this.registry],
  });

  readonly reprints = new Counter({
    name: `${PREFIX}reprints_total`,
    help: 'Items sent back to the press, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly appendDuration = new Histogram({
    name: `${PREFIX}event_store_append_duration_seconds`,
    help: 'Appends to the event store, by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false)
      collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
  }

  /** A gauge whose samples are read when scraped; a failed read leaves it empty. */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: () => Promise<Sample<L>[]>,
  ): void {
    new Gauge<L>({
      name: `${PREFIX}${name}`,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const s of await read().catch(() => [])) this.set(s.labels, s.value);
      },
    });
  }

  /** A counter whose running total is read when scraped. */
  counter(name: string, help: string, read: () => number): void {
    new Counter({
      name: `${PREFIX}${name}`,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  }

  /** The Prometheus text exposition of these metrics, plus `extra` (another exporter's). */
  async text(extra = ''): Promise<string> {
    return (await this.registry.metrics()) + extra;
  }
}
