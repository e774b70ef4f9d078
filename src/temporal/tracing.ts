import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HrTime, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks } from '@temporalio/worker';
import { type SpanSink, tracingOn, workflowSpans } from '../telemetry/tracing.ts';
import type { TracingSinks, WorkflowSpan } from './contract.ts';

/*
 * Temporal in a trace: a workflow started inside a span carries its context (Temporal's
 * own client interceptor, @temporalio/interceptors-opentelemetry), the workflow and the
 * activities it schedules are spans made in the sandbox by workflows/tracing.ts and
 * exported here, and each activity runs in a span of the workflow's trace (Temporal's
 * activity interceptor), so the service's spans inside it (the append, the render) join
 * it. Nothing is added while tracing is off.
 */

/** The client's interceptors: a workflow start carries the active trace. */
export const clientTracing = () =>
  tracingOn() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;

// the sources, or the compiled output beside this compiled file (as worker.ts finds workflows/)
const WORKFLOW_TRACING = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  import.meta.url.endsWith('.ts') ? '../../workflows/tracing.ts' : '../../workflows/tracing.js',
);

/** The workflow bundle's interceptor modules (the workflow side of the trace). */
export const workflowTracingModules = (): string[] => (tracingOn() ? [WORKFLOW_TRACING] : []);

/** The worker's interceptors and the sink its workflows' spans leave the sandbox by. */
export function workerTracing() {
  const spans = workflowSpans();
  if (!tracingOn() || !spans) return undefined;
  const sinks: InjectedSinks<TracingSinks> = {
    tracing: {
      spanEnded: { fn: (_info, span) => spans.processor.onEnd(readable(span, spans)) },
    },
  };
  return {
    interceptors: {
      activity: [
        (ctx: ConstructorParameters<typeof OpenTelemetryActivityInboundInterceptor>[0]) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks,
  };
}

const hrTime = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)];

/** A workflow's span as the exporter takes it. */
function readable(span: WorkflowSpan, sink: SpanSink): ReadableSpan {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: 1 };
  return {
    name: span.name,
    kind: SpanKind.INTERNAL,
    spanContext: () => context,
    parentSpanContext: { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: 1 },
    startTime: hrTime(span.start),
    endTime: hrTime(span.end),
    duration: hrTime(span.end - span.start),
    status: { code: span.failed ? SpanStatusCode.ERROR : SpanStatusCode.UNSET },
    attributes: span.attributes,
    links: [],
    events: [],
    ended: true,
    resource: sink.resource,
    instrumentationScope: { name: 'editor-platform/workflows' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
