import { createRequire } from 'node:module';
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
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
const require = createRequire(import.meta.url);

/**
 * The libraries traced as the service uses them: each PostgreSQL query (its SQL with
 * placeholders, never the values) and each outgoing node:http request (the S3 client's),
 * inside work that is traced already: the many queries of polls and background loops
 * start no trace of their own. Incoming requests are fastify's (src/http/tracing.ts),
 * whose span names the route pattern rather than a path that may hold a token.
 */
const libraries = () => [
  new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
  new HttpInstrumentation({
    disableIncomingRequestInstrumentation: true,
    requireParentforOutgoingSpans: true,
  }),
];

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
      instrumentations: libraries(),
    });
    sdk.start();
    // the instrumentations patch a library when it is required; this service imports pg
    // as an ES module before the SDK starts, which no require hook sees. Required once
    // now, its client's prototype is patched in place, under every import of it.
    require('pg');
    require('node:http');
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
