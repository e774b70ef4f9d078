import { createRequire } from 'node:module';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import { tracingOn, workflowSpans } from './tracing.ts';

/*
 * Temporal's own OpenTelemetry interceptors (@temporalio/interceptors-opentelemetry): a
 * workflow started inside a span continues its trace (client), the workflow's spans come
 * out of its sandbox through a sink, and an activity runs in a span of the workflow's
 * trace (worker), so the service's spans inside it (the append, the render) join it.
 * Nothing is added while tracing is off.
 */

const require = createRequire(import.meta.url);

/** The client's interceptors: a workflow start carries the active trace. */
export const clientTracing = () =>
  tracingOn() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;

/** The workflow bundle's interceptor modules (the workflow side of the trace). */
export const workflowTracingModules = (): string[] =>
  tracingOn()
    ? [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')]
    : [];

/** The worker's interceptors and the sink its workflows' spans leave the sandbox by. */
export function workerTracing() {
  const spans = workflowSpans();
  if (!tracingOn() || !spans) return undefined;
  return {
    interceptors: {
      activity: [
        (ctx: ConstructorParameters<typeof OpenTelemetryActivityInboundInterceptor>[0]) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: {
      // the package is built on OpenTelemetry's SDK 1, whose spans name their parent and
      // scope otherwise: handed on in the shape the service's SDK (2) exports
      exporter: makeWorkflowExporter(
        asVersion1(spans.processor) as unknown as Parameters<typeof makeWorkflowExporter>[0],
        spans.resource as unknown as Parameters<typeof makeWorkflowExporter>[1],
      ),
    },
  };
}

/** A span of SDK 1 as SDK 2 reads it: its parent's context, its instrumentation scope. */
interface Version1Span {
  parentSpanId?: string;
  instrumentationLibrary?: { name: string; version?: string };
}

function asVersion1(processor: SpanProcessor) {
  return {
    onStart: () => {},
    onEnd(span: ReadableSpan & Version1Span) {
      const context = span.spanContext();
      processor.onEnd({
        ...span,
        spanContext: () => context,
        parentSpanContext: span.parentSpanId
          ? { traceId: context.traceId, spanId: span.parentSpanId, traceFlags: context.traceFlags }
          : span.parentSpanContext,
        instrumentationScope: span.instrumentationScope ??
          span.instrumentationLibrary ?? { name: '@temporalio/interceptors-opentelemetry' },
      });
    },
    forceFlush: () => processor.forceFlush(),
    shutdown: () => processor.shutdown(),
  };
}
