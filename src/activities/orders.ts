import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { derivedIds, handleCommand, readState, type StreamState } from '../app/command-handler.ts';
import { renderJobOf, variableJobOf } from '../app/print-jobs.ts';
import {
  type ItemState,
  type OrderCommand,
  type OrderState,
  orderAggregate,
} from '../domain/order/decider.ts';
import type { OrderEvent } from '../domain/order/events.ts';
import { fold } from '../domain/shared/decider.ts';
import { barcodeShapes } from '../print/barcode.ts';
import { RenderError } from '../print/errors.ts';
import { renderLoad } from '../print/load.ts';
import { JobDeadlineError } from '../print/process-pool.ts';
import type { RenderJob } from '../print/render-job.ts';
import type { StoredRender } from '../print/stored-render.ts';
import { inChildSpan, stepsAsSpans } from '../telemetry/tracing.ts';
import type { OrderOutcome, RenderOutcome } from '../temporal/contract.ts';
import type { ActivityDeps } from './deps.ts';
import { beat } from './heartbeat.ts';

const meta = { actor: 'workflow:print' };

type OrderFound = Extract<OrderState, { exists: true }>;
type OrderReceivedEvent = Extract<OrderEvent, { type: 'OrderReceived' }>;
interface Loaded {
  s: OrderFound;
  read: StreamState<OrderState>;
}

/** where an order item's print files are kept (content-addressed under it) */
const keptUnder = (labelId: string, orderItemId: string) => `${labelId}/${orderItemId}/`;

/**
 * What a render ahead must have been made from to be taken: the job, and where it keeps its file.
 */
function aheadKey(job: RenderJob, keep: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ ...job, profile: job.profile?.sha256 ?? null, keep }))
    .digest('hex');
}

const deadlineFailure = (err: unknown) =>
  err instanceof JobDeadlineError
    ? new RenderError(`rendering took longer than ${err.seconds} s`, 'timeout')
    : err;

/**
 * Renders an item's print file as its order says, in a render process: the first
 * renderer (RGB) for orders recorded before PDF/X, the PDF/X-4 one with the order's
 * output profile, marks and inks for the others, which also runs its preflight. The
 * render process reads the design's images from the image store and, with `keep`,
 * puts the file in the print-file store under that prefix; this process sees its hash
 * and facts only. A render past its time limit is killed and fails the item (timeout).
 * A render of the same job started ahead (renderAheadOf) is taken instead of rendering again.
 */
async function render(
  deps: ActivityDeps,
  timing: { began: number },
  order: OrderFound,
  item: ItemState,
  options: { barcode?: ItemState['barcode']; keep?: string } = {},
): Promise<StoredRender> {
  if (item.item.dataset) return renderVariableItem(deps, timing, order, item, options);
  const job = await renderJobOf(deps, order, item, options.barcode ?? item.barcode);
  const { keep } = options;
  const ahead = keep === undefined ? undefined : deps.ahead?.take(keep, aheadKey(job, keep));
  // the render's own time, not its wait for a turn; one taken ahead began before this activity
  const traced = { 'order.item.id': item.item.orderItemId };
  if (!ahead) await inChildSpan('wait for a render slot', traced, () => renderLoad.begin(beat));
  timing.began = ahead?.began ?? performance.now();
  const alive = setInterval(beat, 5000);
  try {
    // one taken ahead fails as if rendered here: a render process that died fails this attempt
    const { phases, ...rendered } = await inChildSpan(
      'render',
      { ...traced, 'render.ahead': ahead !== undefined },
      async () => {
        const done = await (ahead
          ? ahead.result
          : deps.renders.render(order.labelId, { job, stores: deps.stores, keep }));
        // the render process's preflight and put in the store, as spans inside the render's
        stepsAsSpans(done.phases, { 'render.pages': done.file.pages });
        return done;
      },
    );
    return rendered;
  } catch (err) {
    throw deadlineFailure(err);
  } finally {
    clearInterval(alive);
    if (!ahead) renderLoad.end();
  }
}

/**
 * A variable item's PDF/VT file, rendered in a render process as a stream to a file of
 * its own and put in the print-file store from there (`keep`); never rendered ahead (a
 * large one takes a render slot for minutes). `records` renders only those (a reprint).
 */
async function renderVariableItem(
  deps: ActivityDeps,
  timing: { began: number },
  order: OrderFound,
  item: ItemState,
  options: { barcode?: ItemState['barcode']; keep?: string; records?: number[] },
): Promise<StoredRender> {
  const job = await variableJobOf(
    { images: deps.images, pool: deps.db, store: deps.store },
    order,
    item,
    options.barcode ?? item.barcode,
  );
  const records = options.records?.length ?? item.item.dataset!.rows;
  const traced = { 'order.item.id': item.item.orderItemId, 'render.records': records };
  await inChildSpan('wait for a render slot', traced, () => renderLoad.begin(beat));
  timing.began = performance.now();
  const alive = setInterval(beat, 5000);
  try {
    const { file, preflight } = await inChildSpan('render', traced, () =>
      deps.renders.renderVariable(
        order.labelId,
        { job, stores: deps.stores, keep: options.keep, records: options.records },
        records,
      ),
    );
    const { records: _r, ...rest } = file;
    return { file: { ...rest, images: [] }, preflight };
  } catch (err) {
    throw deadlineFailure(err);
  } finally {
    clearInterval(alive);
    renderLoad.end();
  }
}

/** How recent an order must be to be rendered ahead: a backlog read after a restart is not. */
const AHEAD_OF_FRESH_MS = 5000;

/**
 * Starts rendering a new order's items (OrderReceived, as the log hands it to the reactor
 * that starts its workflow) on the render slots free now, before the workflow's first task
 * asks for them (that task comes 20-25 ms later); each item's activity takes its render
 * (render above). Only the print file is made ahead: nothing is recorded until the
 * activity records it, so an order cancelled meanwhile records no file.
 */
export function renderAheadOf(
  deps: ActivityDeps,
): (received: OrderReceivedEvent, recordedAt: Date) => void {
  const ahead = deps.ahead;
  if (!ahead) return () => {};
  return (received, recordedAt) => {
    if (Date.now() - recordedAt.getTime() > AHEAD_OF_FRESH_MS) return;
    // nothing here may fail the reactor's start of the workflow
    void (async () => {
      const s = fold(orderAggregate.decider, [received]);
      if (!s.exists) return;
      for (const item of s.items.values()) {
        if (item.item.dataset) continue;
        const keep = keptUnder(s.labelId, item.item.orderItemId);
        const job = await renderJobOf(deps, s, item, item.barcode);
        const run = () => deps.renders.render(s.labelId, { job, stores: deps.stores, keep });
        if (!ahead.start(keep, aheadKey(job, keep), run)) return;
      }
    })().catch(() => {}); // the activity renders what was not rendered ahead
  };
}

/** where a render asked to keep its file put it */
function keptAt(file: StoredRender['file']): string {
  if (!file.storageKey) throw new Error('the render process kept no print file');
  return file.storageKey;
}

/**
 * When an item has nothing to render (it is missing, its barcode or design moved past
 * `version`, its order was cancelled, it failed, or its file has its barcode and design):
 * what its rendering answers instead.
 */
function settledItem(s: OrderFound, orderItemId: string, version: number | undefined) {
  const item = s.items.get(orderItemId);
  if (!item)
    return () => {
      throw ApplicationFailure.nonRetryable(`no item ${orderItemId}`, 'OrderItemNotFound');
    };
  const target = version ?? item.barcodeVersion;
  // a cancelled order records no file: its render would be thrown away (the workflow of
  // one cancelled while its renders ran learns of it only after them)
  if (item.barcodeVersion !== target || s.status === 'cancelled')
    return () => ({ outcome: 'superseded' as const });
  const done = item.files.at(-1);
  if (
    item.status === 'failed' ||
    (done &&
      !item.revisedSinceFile &&
      done.barcode.value === item.barcode.value &&
      done.barcode.format === item.barcode.format)
  ) {
    const outcome = item.status === 'failed' ? ('failed' as const) : ('ready' as const);
    return () => ({ outcome, sha256: done?.sha256 });
  }
  return undefined;
}

/**
 * The print pipeline's activities: each reads the order's stream and appends with ids
 * derived from what it records, so a retried activity appends nothing twice and writes
 * the same content-addressed file again at most.
 */
export function orderActivities(deps: ActivityDeps) {
  const { store } = deps;
  const observe = deps.observeRender ?? (() => {});
  const kept = deps.orderStates;
  /** reads the order once; `read` lets the command that follows skip a second read */
  const load = async (stream: string): Promise<Loaded> => {
    const read = await readState(store, orderAggregate, stream);
    const s = read.state;
    if (!s.exists) throw ApplicationFailure.nonRetryable(`no order in ${stream}`, 'OrderNotFound');
    kept?.keep(stream, read.revision!, s);
    return { s, read };
  };
  /**
   * The order as this process last appended or read it, unread (`kept`: maybe behind,
   * which the next append at its revision finds out); read when there is none.
   */
  const loadKept = async (stream: string): Promise<Loaded> => {
    const k = kept?.peek(stream);
    if (!k?.state.exists) return load(stream);
    return { s: k.state, read: { revision: k.revision, state: k.state, kept: true } };
  };
  /**
   * An order command with ids derived from the stream and `idParts`: a retry appends
   * nothing twice. A step of the print run (`inRun`) adds the run it decided in;
   * `followedBy` decides a second command into the same append.
   */
  const command = async (
    how: { inRun: boolean; followedBy?: (s: OrderState) => OrderCommand | undefined },
    stream: string,
    read: Loaded['read'] | undefined,
    command: OrderCommand,
    ...idParts: string[]
  ) => {
    const r = await handleCommand(store, orderAggregate, stream, command, meta, {
      // the run of the state the command is decided on: a state read again after a
      // conflict may be a later run's
      eventIds: (i, decidedOn) =>
        derivedIds(
          stream,
          ...idParts,
          ...(how.inRun && decidedOn.exists ? runOf(decidedOn) : []),
        )(i),
      ...(read ? { read } : {}),
      ...(how.followedBy ? { followedBy: how.followedBy } : {}),
    });
    kept?.keepAppended(stream, r);
    return r;
  };
  type CommandArgs = Parameters<typeof command> extends [unknown, ...infer A] ? A : never;
  const run = (...args: CommandArgs) => command({ inRun: false }, ...args);
  const runStep = (...args: CommandArgs) => command({ inRun: true }, ...args);
  /** a step of the run that also completes the order when it settled the last item */
  const runLastStep = (...args: CommandArgs) =>
    command({ inRun: true, followedBy: completion }, ...args);

  /**
   * What a run's derived ids add: nothing for the first run (ids as they always were),
   * the retry's number after that, so a retry's events are new events, not duplicates.
   */
  const runOf = (s: { retries: number }) => (s.retries ? [`retry-${s.retries}`] : []);

  /** the order's completion, once no item waits for its file */
  const completion = (s: OrderState): OrderCommand | undefined =>
    s.exists &&
    s.status === 'rendering' &&
    ![...s.items.values()].some((i) => i.status === 'pending')
      ? { type: 'CompleteOrder', at: new Date() }
      : undefined;

  /** an order's outcome, once it has one */
  const outcomeOf = (s: OrderState): OrderOutcome | undefined =>
    s.exists && (s.status === 'ready' || s.status === 'failed')
      ? { status: s.status, ...(s.reason ? { reason: s.reason } : {}) }
      : undefined;

  async function renderItem(
    stream: string,
    orderItemId: string,
    version: number | undefined,
    wholeRun: boolean,
  ): Promise<RenderOutcome & { order?: OrderOutcome }> {
    let loaded = await loadKept(stream);
    let settled = settledItem(loaded.s, orderItemId, version);
    // nothing to render, on a kept state: only the order as it is now may say so
    if (settled && loaded.read.kept) {
      loaded = await load(stream);
      settled = settledItem(loaded.s, orderItemId, version);
    }
    if (settled) return settled();
    const { s } = loaded;
    const item = s.items.get(orderItemId)!;
    const target = version ?? item.barcodeVersion;
    const step = wholeRun ? runLastStep : runStep;
    const timing = { began: performance.now() };
    const took = () => (performance.now() - timing.began) / 1000;
    // the order's rendering starts (where nothing has started it) while the file renders:
    // the render needs nothing the append decides, and the file is recorded only after
    // both, so an order that may not start (cancelled meanwhile) records no file
    const [started, result] = await Promise.allSettled([
      wholeRun && s.status === 'received'
        ? runStep(stream, loaded.read, { type: 'StartRendering', at: new Date() }, 'rendering')
        : undefined,
      render(deps, timing, s, item, { keep: keptUnder(s.labelId, orderItemId) }),
    ]);
    if (started.status === 'rejected') throw started.reason;
    const { read } = started.value ? await loadKept(stream) : loaded;
    if (result.status === 'rejected') {
      const err: unknown = result.reason;
      if (!(err instanceof RenderError)) throw err;
      observe(took(), 'failed');
      const r = await step(
        stream,
        read,
        { type: 'FailItem', orderItemId, reason: err.message, kind: err.kind, at: new Date() },
        'failed',
        orderItemId,
      );
      const order = wholeRun ? outcomeOf(r.state) : undefined;
      return { outcome: 'failed' as const, reason: err.message, ...(order ? { order } : {}) };
    }
    // no heartbeat of its own here: a render of a barcode regeneration (an activity the
    // server scheduled) beats every 5 s while it renders, a short one needs none (each is
    // a call the server records), and a sale notification's (local) renders cannot
    const { file, preflight: report } = result.value;
    const r = await step(
      stream,
      read,
      {
        type: 'RecordPrintFile',
        orderItemId,
        forVersion: target,
        file: {
          storageKey: keptAt(file),
          sha256: file.sha256,
          pages: file.pages,
          bytes: file.size,
          barcode: item.barcode,
          images: file.images,
          warnings: file.warnings,
        },
        ...(report ? { preflight: report } : {}),
        at: new Date(),
      },
      'print',
      orderItemId,
      String(target),
    );
    observe(took(), 'ready');
    if (r.events.length === 0 && r.appended === undefined)
      return { outcome: 'superseded' as const };
    const order = wholeRun ? outcomeOf(r.state) : undefined;
    return { outcome: 'ready' as const, sha256: file.sha256, ...(order ? { order } : {}) };
  }

  /**
   * A reprint of some records of a variable item: the whole file rendered again and
   * compared with the recorded one, a file of just those records kept, and each
   * record's bytes in it compared with its part of the whole; recorded once.
   */
  async function reprintRecords(
    stream: string,
    s: OrderFound,
    item: ItemState,
    reprintId: string,
    records: number[],
  ) {
    const recorded = item.files.at(-1)!;
    const job = await variableJobOf(
      { images: deps.images, pool: deps.db, store: deps.store },
      s,
      item,
      recorded.barcode,
    );
    const done = await deps.renders.reprintVariable(
      s.labelId,
      {
        job,
        stores: deps.stores,
        keep: `${keptUnder(s.labelId, item.item.orderItemId)}reprints/`,
        records,
      },
      item.item.dataset!.rows,
    );
    await run(
      stream,
      undefined,
      {
        type: 'RecordReprint',
        reprintId,
        orderItemId: item.item.orderItemId,
        expected: recorded.sha256,
        actual: done.wholeSha256,
        records: { file: done.file, matched: done.matched },
        at: new Date(),
      },
      'reprint',
      reprintId,
    );
    const matches = done.wholeSha256 === recorded.sha256 && done.matched;
    return { expected: recorded.sha256, actual: done.wholeSha256, matches };
  }

  return {
    async startRendering(stream: string): Promise<string[]> {
      const { read } = await loadKept(stream);
      const r = await runStep(
        stream,
        read,
        { type: 'StartRendering', at: new Date() },
        'rendering',
      );
      if (!r.state.exists)
        throw ApplicationFailure.nonRetryable(`no order in ${stream}`, 'OrderNotFound');
      return [...r.state.items.values()]
        .filter((i) => i.status === 'pending')
        .map((i) => i.item.orderItemId);
    },

    /**
     * Renders an order item's print file for a barcode version (default: the current),
     * stores it and records it. A design that cannot be printed fails the item (not
     * retried); a newer barcode update makes this rendering moot.
     */
    renderOrderItem: (stream: string, orderItemId: string, version?: number) =>
      renderItem(stream, orderItemId, version, false),

    /**
     * An item of an order's print run, where the workflow was started with the order's
     * items: it starts the order's rendering when nothing has yet, renders as
     * renderOrderItem does, and the append that settles the last item also completes
     * the order, whose outcome it answers. No step of its own waits for the workflow
     * between the file and the order's being ready.
     */
    printOrderItem: (stream: string, orderItemId: string) =>
      renderItem(stream, orderItemId, undefined, true),

    /** Renders the item's current barcode (validating it) and records that it was regenerated. */
    async regenerateBarcode(stream: string, orderItemId: string, version: number) {
      const { s, read } = await load(stream);
      const item = s.items.get(orderItemId);
      if (!item)
        throw ApplicationFailure.nonRetryable(`no item ${orderItemId}`, 'OrderItemNotFound');
      if (item.barcodeVersion !== version) return { outcome: 'superseded' as const };
      try {
        barcodeShapes(item.barcode.format, item.barcode.value);
      } catch (err) {
        throw ApplicationFailure.nonRetryable((err as Error).message, 'RenderError');
      }
      await run(
        stream,
        read,
        { type: 'RecordBarcodeRegenerated', orderItemId, barcode: item.barcode, at: new Date() },
        'barcode',
        orderItemId,
        String(version),
      );
      return { outcome: 'regenerated' as const };
    },

    async completeOrder(stream: string) {
      const { read } = await loadKept(stream);
      const r = await runStep(stream, read, { type: 'CompleteOrder', at: new Date() }, 'complete');
      const s = r.state;
      if (!s.exists)
        throw ApplicationFailure.nonRetryable(`no order in ${stream}`, 'OrderNotFound');
      return { status: s.status, ...(s.reason ? { reason: s.reason } : {}) };
    },

    /**
     * Renders every recorded print file again from the order's events and compares the
     * bytes; a difference is recorded as PrintFileMismatchDetected, never accepted.
     */
    async replayOrder(stream: string, replayId: string) {
      const { s } = await load(stream);
      const results: { orderItemId: string; expected: string; actual: string; matches: boolean }[] =
        [];
      for (const item of s.items.values()) {
        const recorded = item.files.at(-1);
        if (!recorded) continue;
        const { file } = await render(deps, { began: performance.now() }, s, item, {
          barcode: recorded.barcode,
        });
        const actual = file.sha256;
        results.push({
          orderItemId: item.item.orderItemId,
          expected: recorded.sha256,
          actual,
          matches: actual === recorded.sha256,
        });
      }
      await run(
        stream,
        undefined,
        { type: 'RecordReplay', replayId, results, at: new Date() },
        'replay',
        replayId,
      );
      return results;
    },

    /**
     * A reprint's print file: the item's recorded file rendered again from the order's
     * events and compared; the item goes back on the shop floor only when they match
     * (otherwise a mismatch is recorded and it waits).
     */
    async reprintItem(stream: string, reprintId: string, orderItemId: string) {
      const { s } = await load(stream);
      const item = s.items.get(orderItemId);
      const recorded = item?.files.at(-1);
      if (!item || !recorded)
        throw ApplicationFailure.nonRetryable(`no print file of ${orderItemId}`, 'NoPrintFile');
      const records = item.reprintId === reprintId ? item.reprintRecords : undefined;
      if (records) return reprintRecords(stream, s, item, reprintId, records);
      const { file } = await render(deps, { began: performance.now() }, s, item, {
        barcode: recorded.barcode,
      });
      const actual = file.sha256;
      await run(
        stream,
        undefined,
        {
          type: 'RecordReprint',
          reprintId,
          orderItemId,
          expected: recorded.sha256,
          actual,
          at: new Date(),
        },
        'reprint',
        reprintId,
      );
      return { expected: recorded.sha256, actual, matches: actual === recorded.sha256 };
    },
  };
}
