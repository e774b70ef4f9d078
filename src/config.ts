import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { type LabelMaximums, parseMaximums } from './domain/shared/maximums.ts';
import type { ImageCheckSettings } from './print/image-work.ts';
import { parseShares, type Shares } from './shares/door.ts';
import { parseStorageUrl, type S3Location } from './storage/s3.ts';

const DEFAULT_SUPPLIERS = 'supplier-a,supplier-b,supplier-c,supplier-d';

const emptyAsUndefined = (v: unknown) => (v === '' ? undefined : v);
const optionalString = z.preprocess(emptyAsUndefined, z.string().min(1).optional());
const optionalUrl = z.preprocess(emptyAsUndefined, z.url().optional());
/** A short setting of the service's own syntax: refused at start with what `parse` said of it. */
const parsedBy = (parse: (v: string | undefined) => unknown) =>
  z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .max(500)
      .optional()
      .superRefine((v, ctx) => {
        try {
          parse(v);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      }),
  );

const envSchema = z.object({
  PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  HOST: z.preprocess(emptyAsUndefined, z.string().min(1).default('127.0.0.1')),
  DATA_DIR: z.preprocess(emptyAsUndefined, z.string().min(1).default('./data')),
  STORAGE_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .refine((v) => {
        try {
          parseStorageUrl(v);
          return true;
        } catch {
          return false;
        }
      }, 'an s3://bucket/prefix URL (?endpoint=, &region=, &pathStyle=, &publicEndpoint=)')
      .optional(),
  ),
  PRINT_FILE_DOWNLOADS: z.preprocess(
    emptyAsUndefined,
    z.enum(['stream', 'redirect']).default('stream'),
  ),
  PRINT_FILE_URL_TTL_SECONDS: z.preprocess(
    emptyAsUndefined,
    // an S3 signature lives at most 7 days
    z.coerce.number().int().min(1).max(604_800).default(300),
  ),
  OPERATOR_API_KEY: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, 'must be at least 32 characters').optional(),
  ),
  DATABASE_URL: optionalUrl,
  EVENTSTORE_URL: optionalUrl,
  TEMPORAL_ADDRESS: optionalString,
  TEMPORAL_NAMESPACE: z.preprocess(emptyAsUndefined, z.string().min(1).default('default')),
  TEMPORAL_CLI_PATH: optionalString,
  TEMPORAL_TASK_QUEUE: z.preprocess(emptyAsUndefined, z.string().min(1).default('editor-platform')),
  TEMPORAL_UI_PORT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(65535).default(8233),
  ),
  TEMPORAL_UI_URL: optionalUrl,
  TEMPORAL_MAX_CACHED_WORKFLOWS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(2).max(100_000).default(200),
  ),
  TEMPORAL_METRICS_PORT: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(65535).default(0),
  ),
  METRICS_TOKEN: z.preprocess(
    emptyAsUndefined,
    z.string().min(16, 'must be at least 16 characters').optional(),
  ),
  OVERDUE_SWEEP_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(100).default(15_000),
  ),
  MOCKUP_WAIT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(60_000).default(5_000),
  ),
  BATCHING_SWEEP_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(100).default(60_000),
  ),
  RENDER_CONCURRENCY: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(256).default(os.availableParallelism()),
  ),
  RENDER_AHEAD: z.preprocess(emptyAsUndefined, z.enum(['on', 'off']).default('on')),
  RENDER_WARM_UP: z.preprocess(emptyAsUndefined, z.enum(['on', 'off']).default('on')),
  LABEL_SHARES: parsedBy(parseShares),
  LABEL_MAXIMUMS: parsedBy(parseMaximums),
  DOOR_WAIT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(60_000).default(10_000),
  ),
  IMAGE_CHECK_PROCESSES: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1).max(64).default(os.availableParallelism()),
  ),
  IMAGE_CHECK_TIMEOUT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(100).max(600_000).default(30_000),
  ),
  IMAGE_CHECKS_QUEUED: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).max(1000).default(4),
  ),
  INK_PRINT_METHODS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .default('screen,pad,engraving')
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim().toLowerCase())
          .filter(Boolean),
      ),
  ),
  SUPPLIERS: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .default(DEFAULT_SUPPLIERS)
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'names are lowercase a-z0-9-')).min(1),
      ),
  ),
  PRINTSHOP_SUPPLIER: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]*$/)
      .default('printshop'),
  ),
  EDITOR_TOKEN_SECRET: z.preprocess(
    emptyAsUndefined,
    z.string().min(32, 'must be at least 32 characters').optional(),
  ),
  AUDIT_SIGNING_KEY: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{43}$/, 'an Ed25519 seed: 32 bytes, base64url (43 characters)')
      .optional(),
  ),
  AUDIT_HEAD_INTERVAL_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  ),
  AUDIT_SWEEP_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(10).max(3_600_000).default(1000),
  ),
  // 0: this process publishes no daily heads (another projector does)
  AUDIT_DAILY_HEAD_CHECK_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce
      .number()
      .int()
      .refine((n) => n === 0 || (n >= 100 && n <= 3_600_000), '0, or 100 to 3600000')
      .default(600_000),
  ),
  PUBLIC_BASE_URL: optionalUrl,
  // tracing (src/telemetry): on when an OTLP endpoint is given
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_SERVICE_NAME: z.preprocess(emptyAsUndefined, z.string().max(200).default('editor-platform')),
  // a trace UI's address of one trace: {traceId} is put in (https://jaeger.example/trace/{traceId})
  TRACE_UI_URL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .max(2000)
      .refine((u) => u.includes('{traceId}') && URL.canParse(u.replace('{traceId}', '0')), {
        message: 'a URL with {traceId} in it',
      })
      .optional(),
  ),
  PARTNER_TIMEOUT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(100).max(60_000).default(5000),
  ),
  PARTNER_SIMULATOR: z.preprocess(emptyAsUndefined, z.enum(['on', 'off']).optional()),
  WEBHOOK_ALLOW_PRIVATE: z.preprocess(emptyAsUndefined, z.enum(['on', 'off']).optional()),
  WEBHOOK_ALLOW_HTTP: z.preprocess(emptyAsUndefined, z.enum(['on', 'off']).optional()),
  WEBHOOK_TIMEOUT_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(100).max(60_000).default(15_000),
  ),
  WEBHOOK_SCHEDULE_SCALE: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().positive().max(1).default(1),
  ),
  IMAGE_CLEANUP_INTERVAL_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1000).default(600_000),
  ),
  IMAGE_CLEANUP_GRACE_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(0).default(3_600_000),
  ),
  HEALTH_PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(0).max(65535).optional()),
  PROJECTION_MAX_LAG_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1000).default(60_000),
  ),
  PARK_AFTER: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1).max(100).default(3)),
  RECONCILE_INTERVAL_MS: z.preprocess(
    emptyAsUndefined,
    z.coerce.number().int().min(1000).default(60_000),
  ),
  TRUST_PROXY: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .default('false')
      .transform((v, ctx): boolean | number | string[] => {
        if (v === 'true') return true;
        if (v === 'false') return false;
        if (/^\d+$/.test(v)) return Number(v);
        const list = v
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
        if (list.every((x) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(x))) return list;
        ctx.addIssue({
          code: 'custom',
          message: 'true, false, a number of proxies, or addresses/CIDRs separated by commas',
        });
        return z.NEVER;
      }),
  ),
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
});

export type Role = 'api' | 'worker' | 'projector' | 'all';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** the audit log's tree heads: the Ed25519 seed that signs them, and how often */
  audit: {
    signingKey: string;
    headIntervalMs: number;
    sweepMs: number;
    /** how often the labels without today's published head are looked for; 0: never here */
    dailyHeadCheckMs: number;
  };
  /** print files and images in S3 instead of under DATA_DIR (STORAGE_URL, S3_* keys) */
  storage: S3Location | undefined;
  /**
   * How print files are downloaded: streamed through the API, or a 302 to a signed link
   * into the object storage that expires after `ttlSeconds` (S3 only)
   */
  downloads: { mode: 'stream' | 'redirect'; ttlSeconds: number };
  operatorApiKey: string;
  databaseUrl: string | undefined;
  eventStoreUrl: string | undefined;
  temporal: {
    address: string | undefined;
    namespace: string;
    cliPath: string | undefined;
    taskQueue: string;
    /** the embedded dev server's web UI port; 0: no UI */
    uiPort: number;
    /** where operators open a workflow (TEMPORAL_UI_URL; the embedded UI when not set) */
    uiUrl: string | undefined;
    /** the loopback port of the SDK's own metrics in a worker (0: any free one) */
    metricsPort: number;
    /**
     * workflow runs a worker keeps in memory between their tasks (the SDK's default grows
     * with the heap limit: 2,000 and more on a large host, each run a few hundred KB)
     */
    maxCachedWorkflows: number;
  };
  /** a bearer token that may read /metrics besides the operator key */
  metricsToken: string | undefined;
  /** how often the worker looks for unfinished orders past their deadline */
  overdueSweepMs: number;
  /** how often the worker runs the labels' batching rules */
  batchingSweepMs: number;
  /** how long a request for mockups waits for their drawing before it answers 202 */
  mockupWaitMs: number;
  /** print files a worker renders at once (the others wait their turn) */
  renderConcurrency: number;
  /** a new order's items start rendering on free render slots before its workflow asks */
  renderAhead: boolean;
  /** the render processes start with the worker and compile their code on a few small renders */
  renderWarmUp: boolean;
  /** what each label may have running and waiting per cost class, and how long one waits */
  door: { shares: Shares; waitMs: number };
  /** the most of each collection a label may hold */
  labelMaximums: LabelMaximums;
  /** print methods that print with inks (screen, pad, engraving): spot colours, limited colours */
  inkMethods: string[];
  /** the image processes that check images at project save (IMAGE_CHECK_*) */
  imageChecks: ImageCheckSettings;
  suppliers: string[];
  printshopSupplier: string;
  editorTokenSecret: string;
  publicBaseUrl: string;
  /** OpenTelemetry traces over OTLP/HTTP to `endpoint`; off when absent */
  tracing: {
    endpoint: string | undefined;
    serviceName: string;
    /** the ops order page's link to the order's trace: a URL with {traceId} in it */
    uiUrl: string | undefined;
  };
  logLevel: string;
  partnerTimeoutMs: number;
  /** a partner simulator started beside the service (embedded default: on) */
  partnerSimulator: boolean;
  /** where webhooks may go: http besides https, private and loopback addresses */
  webhooks: { allowHttp: boolean; allowPrivate: boolean; timeoutMs: number; scheduleScale: number };
  /** how often the projector removes design images nothing holds, and how new ones it spares */
  imageCleanup: { intervalMs: number; graceMs: number };
  /** where the worker and projector roles serve /livez, /readyz, /metrics (default: PORT) */
  healthPort: number;
  /** a projection or reactor further behind the log than this makes readiness fail */
  maxLagMs: number;
  /** how often the worker compares unfinished orders with their workflows */
  reconcileIntervalMs: number;
  /** tries on an event that keeps failing before a projection or reactor parks it */
  parkAfter: number;
  /**
   * Whether X-Forwarded-For names the client: false (the peer address is the client),
   * true (trust every proxy), a number of proxies, or the proxies' addresses/CIDRs.
   */
  trustProxy: boolean | number | string[];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads a secret kept under DATA_DIR, creating it at first start (embedded default only). */
export function persistedSecret(
  dataDir: string,
  file: string,
): { value: string; created: boolean } {
  const p = path.join(dataDir, file);
  if (existsSync(p)) return { value: readFileSync(p, 'utf8').trim(), created: false };
  mkdirSync(dataDir, { recursive: true });
  const value = randomBytes(32).toString('base64url');
  writeFileSync(p, `${value}\n`, { mode: 0o600 });
  return { value, created: true };
}

export interface LoadedConfig {
  config: Config;
  /** Set when the operator key was generated now: printed once by main, never logged. */
  generatedOperatorKey: string | undefined;
}

/**
 * Validates the environment. A wrong setting throws a ConfigError whose message is one
 * line naming the variable, so `main` can print it and exit.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`invalid configuration: ${name}: ${issue.message}`);
  }
  const e = parsed.data;
  if (e.SUPPLIERS.includes(e.PRINTSHOP_SUPPLIER)) {
    throw new ConfigError(
      'invalid configuration: PRINTSHOP_SUPPLIER: must differ from every name in SUPPLIERS',
    );
  }
  const embedded = !e.DATABASE_URL;
  if (e.PRINT_FILE_DOWNLOADS === 'redirect' && !e.STORAGE_URL) {
    throw new ConfigError(
      'invalid configuration: PRINT_FILE_DOWNLOADS: redirect needs STORAGE_URL (object storage signs the links)',
    );
  }
  const dataDir = path.resolve(e.DATA_DIR);
  let operatorApiKey = e.OPERATOR_API_KEY;
  let generatedOperatorKey: string | undefined;
  if (!operatorApiKey) {
    if (!embedded) {
      throw new ConfigError(
        'invalid configuration: OPERATOR_API_KEY: required when DATABASE_URL is set',
      );
    }
    const s = persistedSecret(dataDir, 'operator-api-key');
    operatorApiKey = s.value;
    if (s.created) generatedOperatorKey = s.value;
  }
  let editorTokenSecret = e.EDITOR_TOKEN_SECRET;
  if (!editorTokenSecret) {
    if (!embedded) {
      throw new ConfigError(
        'invalid configuration: EDITOR_TOKEN_SECRET: required when DATABASE_URL is set',
      );
    }
    editorTokenSecret = persistedSecret(dataDir, 'editor-token-secret').value;
  }
  return {
    config: {
      port: e.PORT,
      host: e.HOST,
      dataDir,
      audit: {
        // kept under DATA_DIR from the first start when not given
        signingKey: e.AUDIT_SIGNING_KEY ?? persistedSecret(dataDir, 'audit-signing-key').value,
        headIntervalMs: e.AUDIT_HEAD_INTERVAL_MS,
        sweepMs: e.AUDIT_SWEEP_MS,
        dailyHeadCheckMs: e.AUDIT_DAILY_HEAD_CHECK_MS,
      },
      operatorApiKey,
      databaseUrl: e.DATABASE_URL,
      eventStoreUrl: e.EVENTSTORE_URL,
      temporal: {
        address: e.TEMPORAL_ADDRESS,
        namespace: e.TEMPORAL_NAMESPACE,
        cliPath: e.TEMPORAL_CLI_PATH,
        taskQueue: e.TEMPORAL_TASK_QUEUE,
        uiPort: e.TEMPORAL_UI_PORT,
        uiUrl: e.TEMPORAL_UI_URL,
        metricsPort: e.TEMPORAL_METRICS_PORT,
        maxCachedWorkflows: e.TEMPORAL_MAX_CACHED_WORKFLOWS,
      },
      metricsToken: e.METRICS_TOKEN,
      overdueSweepMs: e.OVERDUE_SWEEP_MS,
      batchingSweepMs: e.BATCHING_SWEEP_MS,
      mockupWaitMs: e.MOCKUP_WAIT_MS,
      inkMethods: e.INK_PRINT_METHODS,
      imageChecks: {
        processes: e.IMAGE_CHECK_PROCESSES,
        timeoutMs: e.IMAGE_CHECK_TIMEOUT_MS,
        queuedPerUser: e.IMAGE_CHECKS_QUEUED,
      },
      renderConcurrency: e.RENDER_CONCURRENCY,
      renderAhead: e.RENDER_AHEAD === 'on',
      renderWarmUp: e.RENDER_WARM_UP === 'on',
      door: { shares: parseShares(e.LABEL_SHARES), waitMs: e.DOOR_WAIT_MS },
      labelMaximums: parseMaximums(e.LABEL_MAXIMUMS),
      storage: e.STORAGE_URL ? parseStorageUrl(e.STORAGE_URL, env) : undefined,
      downloads: { mode: e.PRINT_FILE_DOWNLOADS, ttlSeconds: e.PRINT_FILE_URL_TTL_SECONDS },
      suppliers: [...e.SUPPLIERS, e.PRINTSHOP_SUPPLIER],
      printshopSupplier: e.PRINTSHOP_SUPPLIER,
      editorTokenSecret,
      publicBaseUrl: e.PUBLIC_BASE_URL ?? `http://${e.HOST}:${e.PORT}`,
      tracing: {
        endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
        serviceName: e.OTEL_SERVICE_NAME,
        uiUrl: e.TRACE_UI_URL,
      },
      logLevel: e.LOG_LEVEL,
      partnerTimeoutMs: e.PARTNER_TIMEOUT_MS,
      partnerSimulator: (e.PARTNER_SIMULATOR ?? (embedded ? 'on' : 'off')) === 'on',
      webhooks: {
        allowHttp: (e.WEBHOOK_ALLOW_HTTP ?? (embedded ? 'on' : 'off')) === 'on',
        allowPrivate: (e.WEBHOOK_ALLOW_PRIVATE ?? (embedded ? 'on' : 'off')) === 'on',
        timeoutMs: e.WEBHOOK_TIMEOUT_MS,
        scheduleScale: e.WEBHOOK_SCHEDULE_SCALE,
      },
      imageCleanup: { intervalMs: e.IMAGE_CLEANUP_INTERVAL_MS, graceMs: e.IMAGE_CLEANUP_GRACE_MS },
      healthPort: e.HEALTH_PORT ?? e.PORT,
      maxLagMs: e.PROJECTION_MAX_LAG_MS,
      reconcileIntervalMs: e.RECONCILE_INTERVAL_MS,
      parkAfter: e.PARK_AFTER,
      trustProxy: e.TRUST_PROXY,
    },
    generatedOperatorKey,
  };
}
