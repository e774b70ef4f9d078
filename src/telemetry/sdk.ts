import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { setTracing } from './tracing.ts';

/**
 * Starts OpenTelemetry's Node SDK when an OTLP endpoint is configured: spans batched to
 * `<endpoint>/v1/traces` (OTLP over HTTP, protobuf), sampled as OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG say (every span when unset), W3C trace context propagated.
 * Traces only: no metrics or logs go over OTLP (metrics are /metrics). Several apps in
 * one process (the tests) share one SDK, shut down with the last. Answers how to stop.
 */
let running: { sdk: NodeSDK; users: number; workflows: BatchSpanProcessor } | undefined;

export function startTracing(t: {
  endpoint: string | undefined;
  serviceName: string;
}): (() => Promise<void>) | undefined {
  if (!t.endpoint) return undefined;
  if (!running) {
    const exporter = new OTLPTraceExporter({
      url: `${t.endpoint.replace(/\/$/, '')}/v1/traces`,
    });
    const resource = defaultResource().merge(
      resourceFromAttributes({ [ATTR_SERVICE_NAME]: t.serviceName }),
    );
    // the workflows' spans, made in Temporal's sandbox, are batched to the same exporter
    const workflows = new BatchSpanProcessor(exporter);
    const sdk = new NodeSDK({
      resource,
      spanProcessors: [new BatchSpanProcessor(exporter)],
      metricReaders: [],
      logRecordProcessors: [],
      instrumentations: [],
    });
    sdk.start();
    setTracing({ processor: workflows, resource });
    running = { sdk, users: 0, workflows };
  }
  const here = running;
  here.users++;
  return async () => {
    if (--here.users > 0) return;
    if (running === here) running = undefined;
    setTracing(undefined);
    await here.workflows.shutdown();
    await here.sdk.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  };
}
