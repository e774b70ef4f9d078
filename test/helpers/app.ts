import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { createLogger } from '../../src/app/logger.ts';
import { type App, type StartOptions, startApp } from '../../src/bootstrap/start.ts';
import { type Config, loadConfig, type Role } from '../../src/config.ts';
import { connectPostgres } from '../../src/db/database.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { setUpShop } from './orders.ts';
import { createDatabase } from './postgres-cluster.ts';

export interface TestApp {
  app: App;
  config: Config;
  url: string;
  operatorKey: string;
  editorTokenSecret: string;
  /** every log line the app wrote */
  logs: string[];
  /** secrets a test used (passwords, callback keys): checked for leaks at stop */
  secrets: Set<string>;
  /** fails when a secret or an API key appears in a log line or a stored event */
  assertNoLeaks(): Promise<void>;
  /** checks for leaks, then stops the app */
  stop(): Promise<void>;
}

const API_KEY = /ep_(adm|int|ful|psk)_[0-9a-f]{32}_[A-Za-z0-9_-]{43}/;

/**
 * The environment of a test app: a fresh database on the run's PostgreSQL, the run's
 * Temporal with a task queue of its own, new secrets, a free port; `env` overrides (a
 * test that restarts an app passes the first one's settings).
 */
export async function testEnv(env: Record<string, string> = {}): Promise<Record<string, string>> {
  return {
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'app-')),
    DATABASE_URL: env.DATABASE_URL ?? (await createDatabase(inject('postgresUrl'))),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`,
    OPERATOR_API_KEY: randomBytes(32).toString('base64url'),
    EDITOR_TOKEN_SECRET: randomBytes(32).toString('base64url'),
    PORT: '0',
    LOG_LEVEL: 'info',
    // the daily tree heads are appended at a time of their own: a test of "nothing
    // changed" would see one (test/e2e/audit-daily-head.test.ts turns them on)
    AUDIT_DAILY_HEAD_CHECK_MS: '0',
    // render processes start at the first render: most test apps render nothing, and each
    // warm-up is about 2 s of CPU a process (the tests of render processes turn it on)
    RENDER_WARM_UP: 'off',
    ...env,
  };
}

/**
 * The whole service in this process against the real servers of the run: a fresh
 * PostgreSQL database (events and read models), the Temporal dev server with a task
 * queue of its own, HTTP on a free loopback port.
 */
/** What another process needs to join a test app: its database, Temporal, files and keys. */
export const joiningEnv = (t: TestApp): Record<string, string> => ({
  DATABASE_URL: t.config.databaseUrl!,
  TEMPORAL_ADDRESS: t.config.temporal.address!,
  TEMPORAL_TASK_QUEUE: t.config.temporal.taskQueue,
  DATA_DIR: t.config.dataDir,
  OPERATOR_API_KEY: t.operatorKey,
  EDITOR_TOKEN_SECRET: t.editorTokenSecret,
});

/**
 * A shop set up through an app spawned as processes of its own (the API at `apiUrl`, the
 * others beside it on `env`), and a connection to the database they share.
 */
export async function shopOfProcesses(apiUrl: string, env: Record<string, string | undefined>) {
  const db = await connectPostgres(env.DATABASE_URL!, 2);
  const shop = await setUpShop(client(apiUrl), {
    operatorKey: env.OPERATOR_API_KEY!,
    editorTokenSecret: env.EDITOR_TOKEN_SECRET!,
    store: new PostgresEventStore(db.pool),
    pool: db.pool,
  });
  return { db, shop };
}

export async function startTestApp(
  env: Record<string, string> = {},
  options: StartOptions & { roles?: Role[] } = {},
): Promise<TestApp> {
  const { config } = loadConfig(await testEnv(env));
  const operatorKey = config.operatorApiKey;
  const editorTokenSecret = config.editorTokenSecret;
  const logs: string[] = [];
  const logger = createLogger(config.logLevel, { write: (line: string) => void logs.push(line) });
  const app = await startApp(config, options.roles ?? 'all', logger, options);
  const secrets = new Set<string>([operatorKey, editorTokenSecret]);
  const assertNoLeaks = async () => {
    const events = await app.db.pool.query<{ text: string }>(
      'SELECT stream_id || type || data::text || metadata::text AS text FROM es_events',
    );
    const places = [
      ...logs.map((line, i) => ({ where: `log line ${i}`, text: line })),
      ...events.rows.map((e, i) => ({ where: `event ${i}`, text: e.text })),
    ];
    for (const { where, text } of places) {
      if (API_KEY.test(text)) throw new Error(`an API key in the clear in ${where}`);
      for (const secret of secrets) {
        if (text.includes(secret)) throw new Error(`a secret in the clear in ${where}`);
      }
    }
  };
  return {
    app,
    config,
    url: app.url!,
    operatorKey,
    editorTokenSecret,
    logs,
    secrets,
    assertNoLeaks,
    async stop() {
      try {
        await assertNoLeaks();
      } finally {
        await app.stop();
      }
    },
  };
}

// biome-ignore lint/suspicious/noExplicitAny: test answers are inspected field by field
export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A small JSON client over real HTTP. */
/**
 * Sends as a client of the service should: told over_share (a label's share of a cost
 * class taken, which a heavily loaded machine can make of a race), it sends the same
 * again after Retry-After, for at most `limitMs`; any other answer is the answer.
 */
export async function askedAgainOverShare<T>(
  send: () => Promise<Answer<T>>,
  limitMs = 180_000,
): Promise<Answer<T>> {
  for (const end = Date.now() + limitMs; ; ) {
    const r = await send();
    const code = (r.body as { code?: unknown } | undefined)?.code;
    if (r.status !== 429 || code !== 'over_share' || Date.now() > end) return r;
    await new Promise((res) => setTimeout(res, Number(r.headers.get('retry-after') ?? 2) * 1000));
  }
}

export function client(baseUrl: string) {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  return async function call<T = any>(
    method: string,
    path: string,
    options: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers['x-api-key'] = options.key;
    let body: string | undefined = options.raw;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !headers['content-type'])
      headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed as T };
  };
}
