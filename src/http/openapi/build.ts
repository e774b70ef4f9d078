import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../config.ts';
import { ChangeFeed } from '../../db/change-feed.ts';
import type { HttpDeps } from '../deps.ts';
import { buildHttpServer } from '../server.ts';

/**
 * The OpenAPI document without a running service: the HTTP server is built (its routes
 * registered, no handler run, nothing listening) with the default settings of an
 * installation, so the document is the same on every machine. The checked-in client is
 * generated from it; a running service serves the same at /openapi.json.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  try {
    const { config } = loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: 'postgres://unused.invalid/unused',
      OPERATOR_API_KEY: 'x'.repeat(32),
      EDITOR_TOKEN_SECRET: 'x'.repeat(32),
      PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
    });
    // only registered, never called: building the document runs no handler
    const unused = undefined as never;
    const deps: HttpDeps = {
      config,
      app: unused,
      runners: unused,
      feed: ChangeFeed.inProcess(),
      principals: undefined,
      appendsOnFeed: false,
      readiness: [],
      door: unused,
      throttle: unused,
      metrics: { metrics: unused, operatorKey: config.operatorApiKey },
      pollers: undefined,
      temporalUiUrl: undefined,
    };
    const app = await buildHttpServer(deps, pino({ level: 'silent' }));
    try {
      await app.ready();
      return app.swagger() as unknown as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
