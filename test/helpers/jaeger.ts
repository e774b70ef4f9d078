import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/db/database.ts';
import { cachedTool } from './cached-tool.ts';

/** The Jaeger binary: JAEGER_PATH, or the one scripts/install-jaeger.sh cached; else undefined. */
export const jaegerBinary = () => cachedTool('install-jaeger.sh', 'JAEGER_PATH', 'JAEGER_NO_BUILD');

/** A span as Jaeger's query API answers it. */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: string; traceID: string; spanID: string }[];
  tags: { key: string; value: unknown }[];
  processID: string;
}

export interface Jaeger {
  /** where the service sends OTLP over HTTP (OTEL_EXPORTER_OTLP_ENDPOINT) */
  otlpEndpoint: string;
  /**
   * The spans of a trace, each with the service that sent it, once Jaeger has them (an
   * empty list while it has none). One answer: its process ids name its own processes.
   */
  spans(traceId: string): Promise<(JaegerSpan & { service: string })[]>;
  /** every span of the service's traces that Jaeger holds (up to 1,000 traces) */
  allSpans(service: string): Promise<JaegerSpan[]>;
  stop(): Promise<void>;
}

/**
 * Jaeger v2 (all in one: OTLP receiver, memory store, query API) on free loopback ports,
 * from a configuration of its own: the default one takes fixed ports.
 */
export async function startJaeger(binary: string): Promise<Jaeger> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'jaeger-'));
  const [otlp, query, queryGrpc, health] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${health}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 100000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${query}
    grpc:
      endpoint: 127.0.0.1:${queryGrpc}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlp}
processors:
  batch:
    timeout: 100ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`,
  );
  let output = '';
  const proc: ChildProcess = spawn(binary, [`--config=file:${config}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => (output += d));
  proc.stderr!.on('data', (d) => (output += d));
  const api = `http://127.0.0.1:${query}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`Jaeger exited:\n${output.slice(-3000)}`);
    const up = await fetch(`${api}/api/services`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`Jaeger did not start:\n${output.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const trace = async (traceId: string) => {
    const r = await fetch(`${api}/api/traces/${traceId}`);
    if (r.status === 404) return undefined;
    if (!r.ok) throw new Error(`Jaeger answered ${r.status}: ${await r.text()}`);
    const body = (await r.json()) as {
      data: { spans: JaegerSpan[]; processes: Record<string, { serviceName: string }> }[];
    };
    return body.data[0];
  };
  return {
    otlpEndpoint: `http://127.0.0.1:${otlp}`,
    async spans(traceId) {
      const found = await trace(traceId);
      return (found?.spans ?? []).map((x) => ({
        ...x,
        service: found?.processes[x.processID]?.serviceName ?? '',
      }));
    },
    async allSpans(service) {
      const r = await fetch(
        `${api}/api/traces?service=${encodeURIComponent(service)}&limit=1000&lookback=1h`,
      );
      const body = (await r.json()) as { data: { spans: JaegerSpan[] }[] };
      return body.data.flatMap((x) => x.spans);
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
