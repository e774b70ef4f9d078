// npm run schemathesis   Property-based tests of the service against its own OpenAPI
// document (Schemathesis, from PyPI): every check, a fixed seed, a bounded number of
// examples per operation, once per kind of key (each run covers the operations that
// key opens). Starts the embedded default in a temporary DATA_DIR on a free port and
// stops it at the end. Needs the Schemathesis CLI: SCHEMATHESIS (a path to `st`), else
// the one scripts/install-schemathesis.sh caches. scripts/schemathesis_hooks.py
// teaches it the one body that is not JSON (an ICC profile).
// Settings: ST_MAX_EXAMPLES (10), ST_SEED (20261122).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../src/db/database.ts';

const root = path.resolve(import.meta.dirname, '..');
const st =
  process.env.SCHEMATHESIS ??
  execFileSync('bash', [path.join(root, 'scripts/install-schemathesis.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
const maxExamples = process.env.ST_MAX_EXAMPLES ?? '10';
const seed = process.env.ST_SEED ?? '20261122';

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 120_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'schemathesis-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
  };
  for (const k of ['DATABASE_URL', 'EVENTSTORE_URL', 'TEMPORAL_ADDRESS', 'OPERATOR_API_KEY'])
    delete env[k];
  const service: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    await until('the service', async () =>
      (await fetch(`${base}/readyz`)).status === 200 ? true : undefined,
    );
    const operatorKey = readFileSync(path.join(dataDir, 'operator-api-key'), 'utf8').trim();
    const call = async (
      method: string,
      p: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<Record<string, string>> => {
      const r = await fetch(`${base}${p}`, {
        method,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = (await r.json()) as Record<string, string>;
      if (r.status >= 400) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(json)}`);
      return json;
    };
    const op = { 'x-api-key': operatorKey };
    const label = await call('POST', '/operator/labels', { name: 'Schemathesis' }, op);
    const admin = { 'x-api-key': label.adminApiKey! };
    const shop = await call(
      'POST',
      '/api/shop-integration',
      { name: 'S', shopSystem: 's', shopUrl: 'https://s.example' },
      admin,
    );
    await call(
      'PUT',
      `/operator/shop-integration/${shop.id}/permissions`,
      { permissions: ['offering'] },
      op,
    );
    const printshop = await call('POST', '/operator/printshop-keys', { name: 'st' }, op);
    const simKey = readFileSync(path.join(dataDir, 'partner-sim-api-key'), 'utf8').trim();
    const sim = `http://127.0.0.1:${port + 1}`;
    await call(
      'POST',
      `/operator/labels/${label.labelId}/callbacks`,
      { production: { url: sim, apiKey: simKey }, environment: 'production' },
      op,
    );
    const session = await call('POST', `/editor/${label.labelId}/login`, {
      userName: 'demo@example.com',
      password: 'demo-password',
      language: 'en',
    });

    const runs: { name: string; header: string; paths: string }[] = [
      { name: 'operator', header: `X-Api-Key: ${operatorKey}`, paths: '^/operator/' },
      {
        name: 'admin',
        header: `X-Api-Key: ${label.adminApiKey}`,
        paths: '^/api/(?!offering|notifyorder)',
      },
      {
        name: 'integration',
        header: `X-Api-Key: ${shop.apiKey}`,
        paths: '^/(api/offering/|api/notifyorder|webhook/notifyorder)',
      },
      {
        name: 'fulfillment',
        header: `X-Api-Key: ${label.fulfillmentApiKey}`,
        paths: '^/v1/(webhook|production|orders|orderitems)/',
      },
      { name: 'printshop', header: `X-Api-Key: ${printshop.apiKey}`, paths: '^/v1/api/printshop/' },
      {
        name: 'editor token',
        header: `Authorization: Bearer ${session.token}`,
        paths: '^/editor/(projects|cart)',
      },
      {
        name: 'no key',
        header: 'X-Request-Id: schemathesis',
        paths: '^/(livez|readyz|editor/\\{labelId\\}/)',
      },
    ];
    const summary: string[] = [];
    let failed = false;
    for (const run of runs) {
      const report = path.join(dataDir, `${run.name.replace(' ', '-')}.json`);
      console.log(`\n== schemathesis: ${run.name} (${run.paths})`);
      const r = await new Promise<number>((resolve) => {
        const p = spawn(
          st,
          [
            '--config-file',
            path.join(root, 'scripts/schemathesis.toml'),
            'run',
            `${base}/openapi.json`,
            '--checks',
            'all',
            '--seed',
            seed,
            '--max-examples',
            maxExamples,
            '--workers',
            '1',
            '--include-path-regex',
            run.paths,
            '-H',
            run.header,
            '--generation-deterministic',
            '--report',
            'json',
            '--report-json-path',
            report,
            '--no-color',
          ],
          // its example database and caches go to the run's temporary folder
          {
            stdio: 'inherit',
            cwd: dataDir,
            env: {
              ...process.env,
              PYTHONPATH: path.join(root, 'scripts'),
              SCHEMATHESIS_HOOKS: 'schemathesis_hooks',
            },
          },
        );
        p.on('exit', (code) => resolve(code ?? 1));
      });
      const rep = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined;
      summary.push(
        rep
          ? `${run.name}: ${rep.operations.tested} operations, ${rep.test_cases.generated} test cases, ${rep.test_cases.with_failures} failed, ${Array.isArray(rep.errors) ? rep.errors.length : rep.errors} errors (exit ${r})`
          : `${run.name}: exit ${r}, no report`,
      );
      if (r !== 0) failed = true;
    }
    console.log(
      `\n== schemathesis summary (seed ${seed}, at most ${maxExamples} examples per operation)`,
    );
    for (const s of summary) console.log(s);
    process.exitCode = failed ? 1 : 0;
  } finally {
    service.kill('SIGTERM');
    await new Promise((r) => service.once('exit', r));
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
