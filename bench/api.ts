// npm run bench:api
// Requests/s and p50/p99 latency of the offering endpoints over loopback, at 50
// connections, on a catalogue of 100k configurations for one supplier, each next to a
// plain fastify route answering a constant body, measured in the same run.
// Starts its own PostgreSQL cluster, Temporal dev server and service process (all
// roles, lib/stack.ts), plus a process of the API role alone on the same database, as
// deployed: the cases run against that one, and the two target cases again against the
// all-in-one process for comparison.
import { type ChildProcess, spawn } from 'node:child_process';
import autocannon from 'autocannon';
import {
  demoConfiguration,
  http,
  labelWithShop,
  seedCatalog,
} from '../scripts/lib/demo-catalog.ts';
import { freePort } from '../src/db/database.ts';
import { startServiceStack, waitFor } from './lib/stack.ts';

const CONFIGS = Number(process.env.BENCH_CONFIGS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;

function run(
  url: string,
  headers: Record<string, string> = {},
  nextPath?: () => string,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: SECONDS,
        headers,
        // a new path for every request, when given (e.g. a random SKU)
        ...(nextPath
          ? { requests: [{ setupRequest: (req) => ({ ...req, path: nextPath() }) }] }
          : {}),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

async function main() {
  const stack = await startServiceStack();
  const { base, operatorKey } = stack;
  let baseline: ChildProcess | undefined;
  try {
    const basePort = await freePort();
    baseline = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/baseline-server.ts', String(basePort)],
      {
        stdio: 'inherit',
      },
    );
    await waitFor(`http://127.0.0.1:${basePort}/baseline`, baseline);

    const call = http(base);
    const { shop } = await labelWithShop(
      call,
      operatorKey,
      { label: 'Bench', shop: 'Bench', shopSystem: 'bench', shopUrl: 'https://bench.example' },
      true,
    );
    const began = Date.now();
    await seedCatalog(call, operatorKey, 'supplier-a', 'B', CONFIGS, (l) =>
      process.stderr.write(`\r${l}   `),
    );
    process.stderr.write(`\nseeded in ${((Date.now() - began) / 1000).toFixed(0)} s\n`);
    const known = demoConfiguration('B', 12_345 % CONFIGS).sku; // B-PEN-012345-RED style
    const asked = new Set<number>();
    let repeats = 0;
    const randomSkuData = () => {
      const n = Math.floor(Math.random() * CONFIGS);
      if (asked.has(n)) repeats++;
      else asked.add(n);
      return `/api/offering/sku/data?supplier=supplier-a&sku=${demoConfiguration('B', n).sku}`;
    };
    const headers = { 'x-api-key': shop.apiKey };
    const cases: [string, string][] = [
      ['smartlink offset 0', '/api/offering/smartlink?supplier=supplier-a&limit=20&offset=0'],
      ['smartlink offset 980', '/api/offering/smartlink?supplier=supplier-a&limit=20&offset=980'],
      ['sku/data', `/api/offering/sku/data?supplier=supplier-a&sku=${known}`],
      ['sku prefix', '/api/offering/sku?supplier=supplier-a&sku=B-MUG-0123'],
      ['sku substring', '/api/offering/sku?supplier=supplier-a&sku=012345'],
    ];
    const api = await stack.addProcess('api');
    for (const [, path] of cases) {
      for (const server of [api, base]) {
        const r = await fetch(`${server}${path}`, { headers });
        if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
      }
    }
    const baseResult = await run(`http://127.0.0.1:${basePort}/baseline`);
    const rows = [
      `| baseline: plain fastify route, constant body | ${baseResult.requests.average.toFixed(0)} | ${baseResult.latency.p50} | ${baseResult.latency.p99} | 1.00 |`,
    ];
    const measure = async (name: string, url: string, nextPath?: () => string) => {
      const r = await run(url, headers, nextPath);
      if (r.non2xx > 0 || r.errors > 0)
        throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      rows.push(
        `| ${name} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} | ${(r.requests.average / baseResult.requests.average).toFixed(2)} |`,
      );
    };
    // BENCH_ONLY=<part of a case name>: measure those cases only (e.g. under a profiler)
    const only = process.env.BENCH_ONLY;
    const wanted = (name: string) => !only || name.includes(only);
    for (const [name, path] of cases) {
      if (wanted(name)) await measure(`${name} (API process)`, `${api}${path}`);
    }
    const cold = 'sku/data, a random one of all SKUs, mostly not cached';
    if (wanted(cold)) await measure(`${cold} (API process)`, api, randomSkuData);
    for (const [name, path] of cases.slice(0, 3)) {
      if (wanted(name)) await measure(`${name} (all-in-one process)`, `${base}${path}`);
    }
    console.log(
      `\n${CONFIGS} configurations for supplier-a, ${CONNECTIONS} connections, ${SECONDS} s per case, loopback\n`,
    );
    if (asked.size > 0) {
      const share = (100 * repeats) / (repeats + asked.size);
      console.log(
        `random sku/data: ${share.toFixed(0)}% of its requests repeated an earlier SKU (at most that many could hit the cache)\n`,
      );
    }
    console.log('| case | requests/s | p50 ms | p99 ms | ratio to baseline |');
    console.log('|---|---:|---:|---:|---:|');
    for (const row of rows) console.log(row);
  } finally {
    baseline?.kill('SIGTERM');
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
