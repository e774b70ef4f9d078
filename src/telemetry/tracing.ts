import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/*
 * Tracing as the service's code uses it: spans around its own steps, and the trace
 * carried through the event log as the W3C `traceparent` in each event's metadata, so
 * that work the log starts later continues the trace of the command that caused it.
 * With no SDK started (sdk.ts: no OTLP endpoint) the API is a no-op: no span records,
 * no event gains a traceparent.
 */

export const tracer = trace.getTracer('editor-platform');

/** Whether this process records spans (sdk.ts started the SDK). */
let recording = false;
export const tracingOn = () => recording;

/** Where spans made outside the SDK's tracer go (the workflows' spans, temporal.ts). */
export interface SpanSink {
  processor: SpanProcessor;
  resource: Resource;
}
let sink: SpanSink | undefined;
export const workflowSpans = () => sink;

export const setTracing = (to: SpanSink | undefined) => {
  recording = to !== undefined;
  sink = to;
};

/** The W3C traceparent of the active span, when one is recorded. */
export function activeTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** Event metadata with the traceparent of the active span, unless it names one already. */
export function withTraceparent<M extends { traceparent?: string }>(metadata: M): M {
  if (metadata.traceparent) return metadata;
  const traceparent = activeTraceparent();
  return traceparent ? { ...metadata, traceparent } : metadata;
}

/** The context a recorded traceparent continues (the active one when none is recorded). */
export const contextOf = (traceparent: string | undefined): Context =>
  traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : context.active();

/**
 * Runs `work` in a span named for what an operator reads, a child of `parent` (the
 * active context when not given); an error ends it as failed and goes on to the caller.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  parent: Context = context.active(),
  links: Link[] = [],
): Promise<T> {
  return tracer.startActiveSpan(name, { attributes, links }, parent, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `work` in a child span of the active recorded span; outside any recorded trace
 * (tracing off, or work no trace reached) it just runs, at no cost.
 */
export function inChildSpan<T>(
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return work();
  return inSpan(name, attributes, () => work());
}

/** The events with the active trace in their metadata (as they are when none records). */
export function traced<E extends { metadata: { traceparent?: string } }>(events: E[]): E[] {
  if (!trace.getActiveSpan()?.isRecording()) return events;
  return events.map((e) => ({ ...e, metadata: withTraceparent(e.metadata) }));
}

/**
 * Runs work that follows an event in a span continuing the event's trace (its recorded
 * traceparent): a reaction, a webhook delivery. An event with none, or tracing off: it
 * just runs.
 */
export function followingEvent<T>(
  traceparent: string | undefined | null,
  name: string,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!traceparent || !recording) return work(undefined);
  return inSpan(name, attributes, work, contextOf(traceparent));
}

/** At most this many links on a span following a batch of events. */
const MAX_LINKS = 32;

/**
 * Runs work that follows a batch of events (a projection's transaction): a child of the
 * first event's trace, linked to the other traces the batch holds, so each order's trace
 * reaches the batch that projected it (as a child or through a link). No recorded
 * traceparent, or tracing off: it just runs.
 */
export function followingEvents<T>(
  traceparents: Iterable<string | undefined>,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  if (!recording) return work();
  const distinct = new Set<string>();
  for (const t of traceparents) {
    if (t) distinct.add(t);
    if (distinct.size > MAX_LINKS) break;
  }
  const [first, ...others] = distinct;
  if (!first) return work();
  const links = others.flatMap((t) => {
    const linked = trace.getSpanContext(contextOf(t));
    return linked ? [{ context: linked }] : [];
  });
  return inSpan(name, attributes, () => work(), contextOf(first), links);
}

/**
 * Steps timed in another process (a render process's preflight and storage put, with
 * epoch-millisecond times), as child spans of the active recorded span; `attributes`
 * join that span. Outside a recorded trace: nothing.
 */
export function stepsAsSpans(
  steps: readonly { name: string; start: number; end: number }[] | undefined,
  attributes: Attributes = {},
): void {
  const active = trace.getActiveSpan();
  if (!active?.isRecording()) return;
  active.setAttributes(attributes);
  for (const step of steps ?? [])
    tracer.startSpan(step.name, { startTime: step.start }).end(step.end);
}
