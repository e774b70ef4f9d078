import {
  type ActivityInput,
  ContinueAsNew,
  defaultPayloadConverter,
  type Headers,
  type LocalActivityInput,
  type Next,
  proxySinks,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
  workflowInfo,
} from '@temporalio/workflow';
import type { TracingSinks } from '../src/temporal/contract.ts';

/*
 * The workflows' side of a trace, bundled into the workflows only while tracing is on
 * (src/temporal/workflow-bundle.ts). A workflow started in a trace (Temporal's client
 * interceptor put its context in the start's `_tracer-data` header) is a span
 * `RunWorkflow:<type>`, each activity it schedules a span `StartActivity:<type>` whose
 * context goes to the activity in the same header, where Temporal's activity
 * interceptor continues it. The spans leave the sandbox through a sink and are exported
 * by the worker.
 *
 * Why not Temporal's own workflow interceptors: they run OpenTelemetry's SDK inside the
 * sandbox, and the sandbox evaluates its modules again for every workflow run (their
 * constant maps, the SDK's environment parsing): measured, that doubled the workflow
 * threads' CPU under a burst of orders (1.8 to 3.2 s for 120). This module needs no
 * library: ids are derived from the run's id, times come from its clock, so a replay makes the same
 * spans (and sends none: the sink is not called during replays).
 */

const { tracing } = proxySinks<TracingSinks>();

/** The header Temporal's OpenTelemetry interceptors carry a trace's context in. */
const TRACE_HEADER = '_tracer-data';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

type Context = { traceId: string; spanId: string };

/** The trace a workflow was started in, and whether the trace is sampled (recorded). */
function contextOf(headers: Headers): (Context & { sampled: boolean }) | undefined {
  const payload = headers[TRACE_HEADER];
  if (!payload) return undefined;
  const carrier = defaultPayloadConverter.fromPayload<{ traceparent?: unknown }>(payload);
  const found =
    typeof carrier?.traceparent === 'string' ? TRACEPARENT.exec(carrier.traceparent) : null;
  if (!found) return undefined;
  // W3C trace flags: bit 0 says the caller records the trace
  const sampled = (Number.parseInt(found[3]!, 16) & 1) === 1;
  return { traceId: found[1]!, spanId: found[2]!, sampled };
}

const withContext = (headers: Headers, c: Context, sampled = true): Headers => ({
  ...headers,
  [TRACE_HEADER]: defaultPayloadConverter.toPayload({
    traceparent: `00-${c.traceId}-${c.spanId}-${sampled ? '01' : '00'}`,
  }),
});

/**
 * The n-th span id of a run: FNV-1a over the run's id and n, twice with other offsets (64
 * bits). The same on replay, and it draws nothing from the workflow's random numbers,
 * which workflow code may use: a run traced and replayed untraced still decides alike.
 */
function spanIdOf(runId: string, n: number): string {
  const half = (offset: number) => {
    let h = offset;
    for (const ch of `${runId}:${n}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    return h.toString(16).padStart(8, '0');
  };
  return half(0x811c9dc5) + half(0x050c5d1f);
}

/** Runs `work` as a span, a child of `parent`; `work` gets the span's context. */
async function inSpan<T>(
  spanId: () => string,
  parent: Context,
  name: string,
  work: (c: Context) => Promise<T>,
  attributes: Record<string, string> = {},
): Promise<T> {
  const c = { traceId: parent.traceId, spanId: spanId() };
  const start = Date.now();
  let failed = false;
  try {
    return await work(c);
  } catch (err) {
    failed = !(err instanceof ContinueAsNew);
    throw err;
  } finally {
    tracing.spanEnded({
      name,
      ...c,
      parentSpanId: parent.spanId,
      start,
      end: Date.now(),
      failed,
      attributes,
    });
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  // the workflow's own span, once it runs in a sampled trace; the trace it was started
  // in when that is not sampled (handed on as it came: nothing under it records either)
  let running: Context | undefined;
  let unsampled: Context | undefined;
  let spans = 0;
  const spanId = () => spanIdOf(workflowInfo().runId, spans++);
  const inbound: WorkflowInboundCallsInterceptor = {
    execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
      const parent = contextOf(input.headers);
      if (!parent) return next(input);
      if (!parent.sampled) {
        unsampled = parent;
        return next(input);
      }
      const { workflowType, workflowId, runId } = workflowInfo();
      return inSpan(
        spanId,
        parent,
        `RunWorkflow:${workflowType}`,
        (c) => {
          running = c;
          return next(input);
        },
        { temporalWorkflowId: workflowId, run_id: runId },
      );
    },
  };
  const activity =
    <I extends ActivityInput | LocalActivityInput>(next: (input: I) => Promise<unknown>) =>
    (input: I) =>
      running
        ? inSpan(spanId, running, `StartActivity:${input.activityType}`, (c) =>
            next({ ...input, headers: withContext(input.headers, c) }),
          )
        : next(
            unsampled ? { ...input, headers: withContext(input.headers, unsampled, false) } : input,
          );
  const outbound: WorkflowOutboundCallsInterceptor = {
    scheduleActivity: (input, next) => activity(next)(input),
    scheduleLocalActivity: (input, next) => activity(next)(input),
  };
  return { inbound: [inbound], outbound: [outbound] };
};
