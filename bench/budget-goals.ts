// The budget's goals, in one place: each headline figure a bench reports (bench/lib/figures.ts),
// the goal it must meet, and the short form of each bench that `npm run bench:budget` runs.
// A goal is raised or lowered here, with the issue that set it, and nowhere else.

export interface Goal {
  /** the id the bench reports it under, `<bench name>.<figure>` */
  id: string;
  what: string;
  atLeast?: number;
  atMost?: number;
  /** the issue that set it */
  issue: number;
}

export interface BudgetBench {
  name: string;
  /** the script under bench/ */
  script: string;
  /** what makes it short: smaller runs, the parts the budget does not read left out */
  env: Record<string, string>;
}

export const BUDGET_BENCHES: BudgetBench[] = [
  {
    name: 'pipeline',
    script: 'pipeline.ts',
    env: { BENCH_ORDERS: '40', BENCH_SINGLES: '15', BENCH_SPLIT: '0', BENCH_TRACING: '0' },
  },
  {
    name: 'tracing',
    script: 'pipeline.ts',
    env: { BENCH_ORDERS: '40', BENCH_TRACING: 'only', BENCH_TRACING_ROUNDS: '4' },
  },
  {
    name: 'webhooks',
    script: 'webhooks.ts',
    env: { BENCH_ORDERS: '0', BENCH_STEADY_SECONDS: '10', BENCH_DELIVERIES_LOG: '0' },
  },
  { name: 'scans', script: 'scans.ts', env: { BENCH_SCANS: '2000' } },
  { name: 'proofs', script: 'proofs.ts', env: { BENCH_RUNS: '10' } },
  // one size, in its own process as the bench runs each
  { name: 'vdp', script: 'vdp.ts 10000', env: {} },
  { name: 'audit', script: 'audit.ts', env: { BENCH_BLOCKS: '8' } },
  { name: 'mockups', script: 'mockups.ts', env: { BENCH_RUNS: '10', BENCH_SECONDS: '5' } },
  { name: 'idle', script: 'idle.ts', env: { IDLE_SECONDS: '90' } },
];

export const GOALS: Goal[] = [
  {
    id: 'pipeline.throughput_ratio',
    what: 'pipeline throughput / raw render',
    atLeast: 0.9,
    issue: 27,
  },
  { id: 'pipeline.p50_over_raw_ms', what: 'one item p50 over raw, ms', atMost: 50, issue: 27 },
  {
    id: 'pipeline.tx_per_order',
    what: 'PostgreSQL transactions per order, burst',
    atMost: 12,
    issue: 58,
  },
  {
    id: 'pipeline.tree_peak_mib',
    what: 'service tree at the burst peak, MiB',
    atMost: 700,
    issue: 58,
  },
  { id: 'tracing.ratio', what: 'burst with tracing on / off', atLeast: 0.95, issue: 47 },
  { id: 'webhooks.burst_ratio', what: 'webhook burst / signed-POST loop', atLeast: 0.8, issue: 58 },
  {
    id: 'webhooks.steady_p95_ms',
    what: 'webhooks steady, append to receipt p95, ms',
    atMost: 500,
    issue: 14,
  },
  {
    id: 'webhooks.isolated_p95_ms',
    what: 'fast endpoint beside slow ones, p95, ms',
    atMost: 1000,
    issue: 25,
  },
  { id: 'scans.ratio', what: 'scans / plain authenticated append', atLeast: 0.5, issue: 23 },
  { id: 'scans.p99_ms', what: 'scans p99, ms', atMost: 50, issue: 23 },
  { id: 'scans.failed', what: 'scans answered other than 2xx', atMost: 0, issue: 23 },
  { id: 'proofs.p50_ms', what: 'proof of a 2-page item, p50 ms', atMost: 1000, issue: 43 },
  {
    id: 'proofs.kinds_of_bytes',
    what: 'kinds of bytes among proofs of one file',
    atMost: 1,
    issue: 43,
  },
  { id: 'vdp.records_per_s', what: 'PDF/VT records/s (10,000 records)', atLeast: 500, issue: 44 },
  {
    id: 'audit.tree_ratio',
    what: 'audit appends with / without the tree',
    atLeast: 0.95,
    issue: 46,
  },
  { id: 'audit.tree_behind_s', what: 'audit tree behind the head, max s', atMost: 2, issue: 46 },
  {
    id: 'audit.bundle_ms',
    what: "an order's audit bundle (200 events), median ms",
    atMost: 50,
    issue: 46,
  },
  {
    id: 'mockups.jpeg_full_p50_ms',
    what: 'JPEG mockup from the PDF, p50 ms',
    atMost: 250,
    issue: 26,
  },
  {
    id: 'mockups.jpeg_full_both_cores_ratio',
    what: 'JPEG mockups/s / composite, both cores',
    atLeast: 0.7,
    issue: 26,
  },
  {
    id: 'mockups.png_full_both_cores_ratio',
    what: 'PNG mockups/s / composite, both cores',
    atLeast: 0.7,
    issue: 26,
  },
  {
    id: 'idle.service_mib',
    what: 'embedded default idle after seed:demo, service, MiB',
    atMost: 400,
    issue: 58,
  },
  {
    id: 'idle.beside_mib',
    what: 'processes npm start leaves waiting beside it, MiB',
    atMost: 50,
    issue: 58,
  },
];
