import { randomUUID } from 'node:crypto';
import { batchesByCode, batchesUnderWay, listBatches } from '#projections/batches';
import { readyItems } from '#projections/order-production';
import { findOrderItem } from '#projections/orders';
import { type BatchState, batchAggregate } from '../domain/batch/decider.ts';
import { type BatchKind, eligibility } from '../domain/batch/eligibility.ts';
import {
  type BatchSpec,
  batchStream,
  type Media,
  type Refusal,
  SHEET_CODE,
} from '../domain/batch/events.ts';
import { orderAggregate } from '../domain/order/decider.ts';
import { fileToPrint } from '../domain/order/state.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { deterministicId } from '../domain/shared/ids.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { type MediaPreset, mediaOfPreset } from '../production/presets.ts';
import { verifiedStream } from '../storage/verified.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { type Floor, floorOf } from './floor.ts';
import { LabelGate } from './label-gate.ts';
import { storedPreview } from './previews.ts';

/** At most this many items in one batch (a press run, not the whole backlog). */
export const MAX_BATCH_ITEMS = 2000;
/**
 * At most this many pieces (copies times pages) in one batch: the imposition of 50,000
 * pieces takes under a minute of an imposition process, and one press run's ticket and
 * record stay a few MB. A request over it is refused at once (400 `batch_too_large`); a
 * filter's or a rule's batch takes items up to it and leaves the rest for the next.
 */
export const MAX_BATCH_PIECES = 50_000;
/** A label's press runs being taken or imposed at once, at most; a request past it is 429. */
export const MAX_BATCHES_UNDER_WAY = 8;
/** a label's batch requests, one at a time in this process, eight more waiting */
const requests = new LabelGate('batch requests', 8);

export type MediaInput =
  | { preset: MediaPreset }
  | { widthMm: number; heightMm: number }
  | { rollWidthMm: number; maxLengthMm: number };

export interface BatchInput {
  items?: string[] | undefined;
  filter?:
    | { printMethod?: string | undefined; sku?: string | undefined; readyBefore?: Date | undefined }
    | undefined;
  media: MediaInput;
  mode: BatchSpec['mode'];
  gutterMm?: number | undefined;
  marginMm?: number | undefined;
  allowRotation?: boolean | undefined;
  copies?: 'quantity' | 1 | undefined;
  imposition?: 'cut-and-stack' | undefined;
}

export const mediaOf = (m: MediaInput): Media =>
  'preset' in m
    ? mediaOfPreset(m.preset)
    : 'rollWidthMm' in m
      ? { kind: 'roll', widthMm: m.rollWidthMm, heightMm: m.maxLengthMm }
      : { kind: 'sheet', widthMm: m.widthMm, heightMm: m.heightMm };

/** The spec a batch is imposed with: what was asked, the rest by default. */
export function specOf(input: Omit<BatchInput, 'items' | 'filter'>): BatchSpec {
  const spec: BatchSpec = {
    mode: input.mode,
    media: mediaOf(input.media),
    // each piece's bleed already keeps trims 6 mm apart: room enough for a plotter's knife
    gutterMm: input.gutterMm ?? 0,
    marginMm: input.marginMm ?? 5,
    allowRotation: input.allowRotation ?? input.mode === 'gang',
    copies: input.copies === 1 ? 'one' : 'quantity',
    ...(input.imposition ? { imposition: input.imposition } : {}),
  };
  if (spec.imposition === 'cut-and-stack' && spec.mode !== 'step-repeat')
    throw new DomainError(
      'invalid',
      'cut-and-stack is a grid with cut marks: mode step-repeat',
      'cut_and_stack_step_repeat',
      { field: 'mode' },
    );
  if (spec.media.widthMm - 2 * spec.marginMm < 10 || spec.media.heightMm - 2 * spec.marginMm < 30)
    throw new DomainError(
      'invalid',
      'the media minus its margins leaves no room for a piece and the slug',
      'media_too_small',
      { field: 'marginMm' },
    );
  return spec;
}

type Candidate = { orderItemId: string; stream: string };

/**
 * Checks the candidates as their orders are now: ready, not on hold, one print method,
 * ink set and output profile (the first acceptable item sets them; with `strict`, as for
 * items named one by one, a second output profile refuses the whole batch).
 */
async function screen(
  ctx: AppContext,
  labelId: string,
  candidates: Candidate[],
  printMethod: string | undefined,
  strict: boolean,
  copies: BatchSpec['copies'],
) {
  const kept: Candidate[] = [];
  let pieces = 0;
  const refused: Refusal[] = [];
  let kind: Partial<BatchKind> = printMethod ? { printMethod: printMethod.toLowerCase() } : {};
  const profiles = new Map<string, string>();
  for (const c of candidates) {
    const order = await loadState(ctx.store, orderAggregate, c.stream);
    const e = eligibility(order, labelId, c.orderItemId, kind, {
      readiness: true,
      profile: !strict,
    });
    if (!e.ok) {
      refused.push({ orderItemId: c.orderItemId, code: e.code, reason: e.reason });
      continue;
    }
    const itemPieces =
      (copies === 'quantity' ? Math.max(1, e.item.item.quantity) : 1) *
      Math.max(1, fileToPrint(e.item)?.pages ?? 1);
    if (pieces + itemPieces > MAX_BATCH_PIECES) {
      const reason = `${itemPieces} pieces (copies times pages) would take the batch past ${MAX_BATCH_PIECES}, the most one press run holds`;
      if (strict) throw new DomainError('invalid', reason, 'batch_too_large', { field: 'items' });
      refused.push({ orderItemId: c.orderItemId, code: 'batch_too_large', reason });
      continue;
    }
    pieces += itemPieces;
    profiles.set(e.kind.outputProfile.sha256, e.kind.outputProfile.description);
    kind = e.kind;
    kept.push(c);
  }
  if (strict && profiles.size > 1)
    throw new DomainError(
      'conflict',
      `the items were made for ${profiles.size} output profiles (${[...profiles.values()].join(', ')}): a sheet has one output intent`,
      'mixed_output_profiles',
      { field: 'items' },
    );
  return { kept, refused };
}

/**
 * Opens a press run: the items named (or those the filter finds, oldest first) are
 * screened, and the batch is recorded with its candidates; taking them, imposing and
 * laying out the files follow from the log. With an Idempotency-Key the batch's id
 * derives from it: the same request again answers the same batch.
 */
export function openBatch(
  ctx: AppContext,
  at: string | Floor,
  input: BatchInput,
  idempotencyKey: string | undefined,
  metadata: EventMetadata,
  source: { kind: 'request' } | { kind: 'rule'; rule: string } = { kind: 'request' },
  batchIdGiven?: string,
): Promise<{ batchId: string; candidates: number; refused: Refusal[] }> {
  const spec = specOf(input);
  if (spec.imposition === 'cut-and-stack' && input.items?.length !== 1)
    throw new DomainError(
      'invalid',
      'cut-and-stack lays out one variable item: name it in items',
      'cut_and_stack_one_item',
      { field: 'items' },
    );
  const floor = floorOf(at);
  return requests.run(floor.labelId, () =>
    openBatchNow(ctx, floor, input, spec, idempotencyKey, metadata, source, batchIdGiven),
  );
}

async function openBatchNow(
  ctx: AppContext,
  { labelId, facilityId }: Floor,
  input: BatchInput,
  spec: BatchSpec,
  idempotencyKey: string | undefined,
  metadata: EventMetadata,
  source: { kind: 'request' } | { kind: 'rule'; rule: string },
  batchIdGiven: string | undefined,
): Promise<{ batchId: string; candidates: number; refused: Refusal[] }> {
  const batchId =
    batchIdGiven ??
    (idempotencyKey ? deterministicId('batch', labelId, idempotencyKey) : randomUUID());
  const known = await loadState(ctx.store, batchAggregate, batchStream(batchId));
  if (known.exists) {
    if (
      known.labelId !== labelId ||
      known.facilityId !== facilityId ||
      !sameRequest(known, spec, input.items)
    )
      throw new DomainError(
        'conflict',
        'this Idempotency-Key was used already, for another request',
        'idempotency_key_reused',
      );
    return { batchId, candidates: known.candidates.length, refused: known.refused };
  }
  if (
    source.kind === 'request' &&
    (await batchesUnderWay(ctx.pool, labelId)) >= MAX_BATCHES_UNDER_WAY
  )
    throw new DomainError(
      'rate_limited',
      `${MAX_BATCHES_UNDER_WAY} press runs of this label are being taken or imposed; send this one when one of them is done`,
      'too_many_batches',
      { retryAfterSeconds: 30 },
    );
  let candidates: Candidate[] = [];
  const refused: Refusal[] = [];
  if (input.items) {
    for (const id of [...new Set(input.items)]) {
      const row = await findOrderItem(ctx.pool, labelId, id);
      // a facility's press run takes its own items: another facility's are not found
      if (row && (facilityId === undefined || row.facility_id === facilityId))
        candidates.push({ orderItemId: id, stream: row.stream_id });
      else
        refused.push({
          orderItemId: id,
          code: 'order_item_not_found',
          reason: 'no such order item of the label',
        });
    }
  } else {
    const rows = await readyItems(
      ctx.pool,
      labelId,
      { ...input.filter, ...(facilityId ? { facilityId } : {}) },
      MAX_BATCH_ITEMS * 2,
    );
    candidates = rows.map((r) => ({ orderItemId: r.order_item_id, stream: r.stream_id }));
  }
  const screened = await screen(
    ctx,
    labelId,
    candidates,
    input.filter?.printMethod,
    input.items !== undefined,
    spec.copies,
  );
  const kept = screened.kept.slice(0, MAX_BATCH_ITEMS);
  refused.push(...screened.refused);
  if (kept.length === 0)
    throw new DomainError(
      'conflict',
      refused.length
        ? `no item can be batched: ${refused
            .slice(0, 5)
            .map((r) => `${r.orderItemId} (${r.reason})`)
            .join('; ')}${refused.length > 5 ? ` and ${refused.length - 5} more` : ''}`
        : 'no ready item matches',
      // every item named waits for its proof's approval: say so by the code too
      refused.length > 0 && refused.every((r) => r.code === 'awaiting_approval')
        ? 'awaiting_approval'
        : 'nothing_to_batch',
    );
  await handleCommand(
    ctx.store,
    batchAggregate,
    batchStream(batchId),
    {
      type: 'RequestBatch',
      batchId,
      labelId,
      facilityId,
      spec,
      candidates: kept,
      // items named by the request only: a filter's leftovers wait for the next batch
      refused: input.items ? refused : [],
      source,
      at: new Date(),
    },
    { ...metadata, labelId },
  );
  return { batchId, candidates: kept.length, refused: input.items ? refused : [] };
}

type Batch = Extract<BatchState, { exists: true }>;

/** Is this the request that opened the batch: the same spec, and the same items when named? */
function sameRequest(known: Batch, spec: BatchSpec, items: string[] | undefined): boolean {
  if (canonical(known.spec) !== canonical(spec)) return false;
  if (!items) return true;
  const asked = new Set(items);
  const recorded = new Set([
    ...known.candidates.map((c) => c.orderItemId),
    ...known.refused.map((r) => r.orderItemId),
  ]);
  for (const id of recorded) if (!asked.has(id)) return false;
  // past MAX_BATCH_ITEMS, the request's last items were never recorded
  return asked.size > MAX_BATCH_ITEMS || asked.size === recorded.size;
}

/** JSON with its keys sorted: the same value gives the same text, whatever its keys' order. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );

/** The batch of the label (of the facility, for a facility's key); another's is not found. */
export async function batchOf(
  ctx: AppContext,
  at: string | Floor,
  batchId: string,
): Promise<Batch> {
  const { labelId, facilityId } = floorOf(at);
  const b = await loadState(ctx.store, batchAggregate, batchStream(batchId));
  if (
    !b.exists ||
    b.labelId !== labelId ||
    (facilityId !== undefined && b.facilityId !== facilityId)
  )
    throw new DomainError('not_found', 'batch not found', 'batch_not_found');
  return b;
}

/** The batch as its readers see it. */
export function batchView(b: Batch) {
  const im = b.imposition;
  return {
    batchId: b.batchId,
    ...(b.facilityId ? { facilityId: b.facilityId } : {}),
    status: b.status,
    mode: b.spec.mode,
    media: b.spec.media,
    gutterMm: b.spec.gutterMm,
    marginMm: b.spec.marginMm,
    allowRotation: b.spec.allowRotation,
    copies: b.spec.copies === 'one' ? (1 as const) : ('quantity' as const),
    ...(b.spec.imposition ? { imposition: b.spec.imposition } : {}),
    source: b.source.kind === 'rule' ? `rule ${b.source.rule}` : 'request',
    requestedAt: b.requestedAt,
    printMethod: b.claims?.printMethod ?? null,
    inkSet: b.claims?.inkSet ?? null,
    outputProfile: b.claims?.outputProfile?.description ?? null,
    items: (b.claims?.items ?? []).map((i) => ({
      orderItemId: i.orderItemId,
      orderId: i.orderId,
      itemId: i.itemId,
      sku: i.sku,
      quantity: i.quantity,
      copies: i.copies,
      printFileSha256: i.file.sha256,
    })),
    refused: b.refused,
    sheets: (im?.sheets ?? []).map((s) => ({
      n: s.n,
      sha256: s.sha256,
      widthMm: s.widthMm,
      heightMm: s.heightMm,
      utilisation: s.utilisation,
      printedAt: b.printed.get(s.n)?.at ?? null,
      placements: s.placements,
    })),
    sheetCount: im ? im.sheets.length : null,
    lowerBound: im?.lowerBound ?? null,
    utilisation: im?.utilisation ?? null,
    heuristic: im?.heuristic ?? null,
    warnings: im?.warnings ?? [],
    failure: b.failure ?? null,
    hotFolder: b.delivered
      ? { location: b.delivered.location, files: b.delivered.files, at: b.delivered.at }
      : null,
    cancelledAt: b.cancelledAt ?? null,
    replays: b.replays.map((r) => ({
      replayId: r.replayId,
      requestedAt: r.requestedAt,
      at: r.at ?? null,
      matches: r.matches ?? null,
      sheets: r.sheets,
    })),
  };
}

/** The label's batches, newest first, as lists show them. */
export async function batchList(ctx: AppContext, at: string | Floor) {
  const { labelId, facilityId } = floorOf(at);
  return (await listBatches(ctx.pool, labelId, 100, facilityId)).map((b) => ({
    batchId: b.batch_id,
    code: b.code,
    status: b.status,
    mode: b.mode as BatchSpec['mode'],
    source: b.source,
    items: b.items,
    sheetCount: b.sheet_count,
    lowerBound: b.lower_bound,
    utilisation: b.utilisation,
    requestedAt: b.requested_at.toISOString(),
  }));
}

/** One of the batch's files, streamed and checked against its recorded sha256. */
export async function batchFile(
  ctx: AppContext,
  at: string | Floor,
  batchId: string,
  which: { sheet: number } | 'ticket' | 'job-sheet',
) {
  const b = await batchOf(ctx, at, batchId);
  const im = b.imposition;
  const file =
    which === 'ticket'
      ? im?.ticket
      : which === 'job-sheet'
        ? im?.jobSheet
        : im?.sheets.find((s) => s.n === which.sheet);
  if (!file)
    throw new DomainError(
      'not_found',
      im ? 'the batch has no such sheet' : `the batch is ${b.status}: it has no files yet`,
      im ? 'sheet_not_found' : 'batch_not_imposed',
    );
  const opened = await ctx.storage.open(file.storageKey);
  if (!opened) throw new DomainError('not_found', 'the file is missing', 'file_missing');
  return { sha256: file.sha256, size: opened.size, body: verifiedStream(opened.body, file.sha256) };
}

/** A preview (PNG) of one of the batch's sheets, drawn when first asked for and kept beside it. */
export async function sheetPreview(
  ctx: AppContext,
  at: string | Floor,
  batchId: string,
  n: number,
) {
  const b = await batchOf(ctx, at, batchId);
  const sheet = b.imposition?.sheets.find((s) => s.n === n);
  if (!sheet) throw new DomainError('not_found', 'the batch has no such sheet', 'sheet_not_found');
  return storedPreview(ctx, sheet.storageKey, 1);
}

/** The press runs an ops viewer sees: a label's, or every label's for the operator. */
export const opsBatches = (ctx: AppContext, labelId: string | undefined) =>
  listBatches(ctx.pool, labelId, 100);

/** Cancels a batch: its items not printed are ready again (from the log). */
export async function cancelBatch(
  ctx: AppContext,
  at: string | Floor,
  batchId: string,
  reason: string | undefined,
  metadata: EventMetadata,
) {
  const { labelId } = await batchOf(ctx, at, batchId);
  const r = await handleCommand(
    ctx.store,
    batchAggregate,
    batchStream(batchId),
    { type: 'CancelBatch', reason, at: new Date() },
    { ...metadata, labelId },
  );
  if (!r.state.exists) throw new Error('batch vanished');
  return { batchId, status: r.state.status };
}

/** Asks for the batch to be imposed again and compared, sheet by sheet (from the log). */
export async function requestBatchReplay(
  ctx: AppContext,
  at: string | Floor,
  batchId: string,
  metadata: EventMetadata,
) {
  const { labelId } = await batchOf(ctx, at, batchId);
  const replayId = randomUUID();
  await handleCommand(
    ctx.store,
    batchAggregate,
    batchStream(batchId),
    { type: 'RequestBatchReplay', replayId, at: new Date() },
    { ...metadata, labelId },
  );
  return { batchId, replayId };
}

/** Is this a sheet's slug code (what `sheetCode` makes)? */
export const isSheetCode = (code: string) => SHEET_CODE.test(code);

/**
 * A sheet's slug scanned at the press: the sheet is printed, and so (from the log) is
 * every item on it. The same scan again changes nothing.
 */
export async function recordSheetScan(
  ctx: AppContext,
  { labelId, facilityId }: Floor,
  code: string,
  station: string | undefined,
  metadata: EventMetadata,
) {
  const m = SHEET_CODE.exec(code)!;
  const n = Number(m[2]);
  const ids = await batchesByCode(ctx.pool, labelId, `B${m[1]}`);
  if (ids.length === 0)
    throw new DomainError('not_found', 'no batch of this label has this code', 'code_not_found', {
      field: 'code',
    });
  if (ids.length > 1)
    throw new DomainError('conflict', 'more than one batch has this code', 'ambiguous_code', {
      field: 'code',
    });
  const batchId = ids[0]!;
  // a facility scans its own press runs' sheets only
  if (facilityId !== undefined) await batchOf(ctx, { labelId, facilityId }, batchId);
  const r = await handleCommand(
    ctx.store,
    batchAggregate,
    batchStream(batchId),
    { type: 'RecordSheetPrinted', n, station, at: new Date() },
    { ...metadata, labelId },
  );
  if (!r.state.exists) throw new Error('batch vanished');
  const sheet = r.state.imposition?.sheets.find((s) => s.n === n);
  return {
    batchId,
    sheet: n,
    stage: 'printed' as const,
    orderItemIds: [...new Set((sheet?.placements ?? []).map((p) => p.orderItemId))],
  };
}
