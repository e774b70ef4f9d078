import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { type App, startApp } from '../../src/app/container.ts';
import { createLogger } from '../../src/app/logger.ts';
import { loadConfig } from '../../src/config.ts';
import { createDatabase } from './postgres-cluster.ts';

export interface TestApp {
  app: App;
  url: string;
  operatorKey: string;
  editorTokenSecret: string;
  /** every log line the app wrote */
  logs: string[];
  stop(): Promise<void>;
}

/**
 * The whole service in this process against the real servers of the run: a fresh
 * PostgreSQL database (events and read models), the Temporal dev server with a task
 * queue of its own, HTTP on a free loopback port.
 */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const operatorKey = randomBytes(32).toString('base64url');
  const editorTokenSecret = randomBytes(32).toString('base64url');
  const { config } = loadConfig({
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'app-')),
    DATABASE_URL: await createDatabase(inject('postgresUrl')),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`,
    OPERATOR_API_KEY: operatorKey,
    EDITOR_TOKEN_SECRET: editorTokenSecret,
    PORT: '0',
    LOG_LEVEL: 'info',
    ...env,
  });
  const logs: string[] = [];
  const logger = createLogger(config.logLevel, { write: (line: string) => void logs.push(line) });
  const app = await startApp(config, 'all', logger);
  return { app, url: app.url!, operatorKey, editorTokenSecret, logs, stop: () => app.stop() };
}

// biome-ignore lint/suspicious/noExplicitAny: test answers are inspected field by field
export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A small JSON client over real HTTP. */
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
