import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { setTracing } from './tracing.ts';

/**
 * Starts OpenTelemetry's Node SDK when an OTLP endpoint is configured: spans batched to
 * `<endpoint>/v1/traces` (OTLP over HTTP, protobuf), sampled as OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG say (every span when unset), W3C trace context propagated.
 * Traces only: no metrics or logs go over OTLP (metrics are /metrics). Several apps in
 * one process (the tests) share one SDK, shut down with the last. Answers how to stop.
 */
let running: { sdk: NodeSDK; users: number } | undefined;

export function startTracing(t: {
  endpoint: string | undefined;
  serviceName: string;
}): (() => Promise<void>) | undefined {
  if (!t.endpoint) return undefined;
  if (!running) {
    const sdk = new NodeSDK({
      serviceName: t.serviceName,
      traceExporter: new OTLPTraceExporter({ url: `${t.endpoint.replace(/\/$/, '')}/v1/traces` }),
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [],
    });
    sdk.start();
    setTracing(true);
    running = { sdk, users: 0 };
  }
  const here = running;
  here.users++;
  return async () => {
    if (--here.users > 0) return;
    if (running === here) running = undefined;
    setTracing(false);
    await here.sdk.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  };
}
