import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { derivedIds, handleCommand, readState } from '../app/command-handler.ts';
import { loadOutputProfile } from '../app/print-settings.ts';
import { type BatchCommand, type BatchState, batchAggregate } from '../domain/batch/decider.ts';
import { type BatchKind, eligibility } from '../domain/batch/eligibility.ts';
import { type BatchItem, batchStream, type Refusal } from '../domain/batch/events.ts';
import { labelAggregate } from '../domain/label/decider.ts';
import { labelStream } from '../domain/label/events.ts';
import { orderAggregate } from '../domain/order/decider.ts';
import { fileToPrint } from '../domain/order/state.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventStore } from '../eventstore/port.ts';
import { JobFailedError } from '../print/errors.ts';
import { JobCancelledError, JobCrashedError, JobDeadlineError } from '../print/process-pool.ts';
import { sheetFileName } from '../production/batch-files.ts';
import { ImpositionError } from '../production/impose.ts';
import type { Impositions } from '../production/imposition-work.ts';
import type { StoredImposition } from '../production/stored-imposition.ts';
import type { StoreLocation } from '../storage/location.ts';
import type { FileStorage } from '../storage/port.ts';
import { beat } from './heartbeat.ts';

const meta = { actor: 'workflow:batch' };
/** how often a running imposition looks whether its batch was cancelled */
const CANCEL_LOOK_MS = 1000;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export interface BatchActivityDeps {
  store: EventStore;
  storage: FileStorage;
  images: FileStorage;
  /** where the stores live: the imposition processes read and put the files themselves */
  stores: StoreLocation;
  /** the imposition processes */
  impositions: Pick<Impositions, 'impose'>;
}

/** A failure of the imposition that the same input will meet again: the batch fails, no retry. */
function lastingFailure(err: unknown): string | undefined {
  if (err instanceof JobFailedError && err.original === 'ImpositionError') return err.message;
  if (err instanceof ImpositionError) return err.message;
  if (err instanceof JobDeadlineError) return `the imposition ${err.message}`;
  if (err instanceof JobCrashedError) return `${err.message} (out of memory, most likely)`;
  return undefined;
}

/** The batch's imposition from its events, in an imposition process: the same input every time. */
export async function imposeFromEvents(
  deps: Pick<BatchActivityDeps, 'images' | 'stores' | 'impositions'>,
  b: Extract<BatchState, { exists: true }>,
  keep: boolean,
  signal?: AbortSignal,
): Promise<StoredImposition & { items: BatchItem[] }> {
  const claims = b.claims;
  if (!claims || claims.items.length === 0 || !claims.outputProfile)
    throw new ImpositionError('the batch holds no item');
  const profile = await loadOutputProfile(deps.images, claims.outputProfile);
  const imposed = await deps.impositions.impose(
    b.labelId,
    {
      batchId: b.batchId,
      labelId: b.labelId,
      spec: b.spec,
      requestedAt: b.requestedAt,
      items: claims.items,
      profile,
      stores: deps.stores,
      keep,
    },
    { whileWorking: beat, ...(signal ? { signal } : {}) },
  );
  return { ...imposed, items: claims.items };
}

/**
 * The press-run activities: take the items (each marked batched on its order), impose
 * them, lay the files into the hot folder, replay. Each reads the batch's stream and
 * appends with ids derived from what it records, so a retry appends nothing twice.
 */
export function batchActivities(deps: BatchActivityDeps) {
  const { store, storage } = deps;
  const load = async (batchId: string) => {
    const { state } = await readState(store, batchAggregate, batchStream(batchId));
    if (!state.exists)
      throw ApplicationFailure.nonRetryable(`no batch ${batchId}`, 'BatchNotFound');
    return state;
  };
  const run = (batchId: string, command: BatchCommand, ...idParts: string[]) =>
    handleCommand(store, batchAggregate, batchStream(batchId), command, meta, {
      eventIds: derivedIds(batchStream(batchId), ...idParts),
    });
  const onOrder = (
    stream: string,
    command:
      | {
          type: 'BatchItem';
          orderItemId: string;
          batchId: string;
          facilityId?: string | undefined;
          at: Date;
        }
      | { type: 'UnbatchItem'; orderItemId: string; batchId: string; reason: string; at: Date },
    labelId: string,
  ) =>
    handleCommand(
      store,
      orderAggregate,
      stream,
      command,
      { ...meta, labelId },
      {
        eventIds: derivedIds(stream, command.type, command.orderItemId, command.batchId),
      },
    );

  /** Lets every item of the batch go (those it holds; printed ones stay printed). */
  async function release(b: Extract<BatchState, { exists: true }>, reason: string) {
    for (const c of b.candidates) {
      beat();
      await onOrder(
        c.stream,
        {
          type: 'UnbatchItem',
          orderItemId: c.orderItemId,
          batchId: b.batchId,
          reason,
          at: new Date(),
        },
        b.labelId,
      );
    }
  }

  return {
    /**
     * Takes the batch's candidates one by one: each must be ready, not on hold, of the
     * batch's print method, ink set and output profile (the first item taken sets them);
     * taking it records OrderItemBatched on its order, so no other batch takes it. Then
     * records what was taken and refused; a batch cancelled meanwhile lets them go again.
     */
    async claimBatchItems(batchId: string): Promise<{ items: number; refused: number }> {
      const b = await load(batchId);
      // cancelled while it was taking them (this is a retry after a crash, say): let them go
      if (b.status === 'cancelled') await release(b, 'the batch was cancelled');
      if (b.status !== 'claiming')
        return { items: b.claims?.items.length ?? 0, refused: b.refused.length };
      const items: BatchItem[] = [];
      const refused: Refusal[] = [];
      let kind: BatchKind | undefined;
      for (const c of b.candidates) {
        beat();
        const { state: order } = await readState(store, orderAggregate, c.stream);
        const e = eligibility(order, b.labelId, c.orderItemId, kind ?? {}, {
          readiness: false, // the order's decider refuses what is not ready, below
          profile: true,
        });
        if (!e.ok || !order.exists) {
          if (!e.ok) refused.push({ orderItemId: c.orderItemId, code: e.code, reason: e.reason });
          continue;
        }
        try {
          await onOrder(
            c.stream,
            {
              type: 'BatchItem',
              orderItemId: c.orderItemId,
              batchId,
              // a facility's press run takes its own items (one moved away since is refused)
              facilityId: b.facilityId,
              at: new Date(),
            },
            b.labelId,
          );
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          refused.push({ orderItemId: c.orderItemId, code: err.code, reason: err.message });
          continue;
        }
        kind = e.kind;
        const { item } = e;
        const file = fileToPrint(item)!;
        items.push({
          orderItemId: c.orderItemId,
          stream: c.stream,
          orderId: order.orderId,
          itemId: item.item.itemId,
          sku: item.item.sku,
          quantity: item.item.quantity,
          copies: b.spec.copies === 'quantity' ? Math.max(1, item.item.quantity) : 1,
          printMethod: e.kind.printMethod,
          file: { storageKey: file.storageKey, sha256: file.sha256, pages: file.pages },
          // a variable item's whole file holds its records in order (a reprint's file, some)
          ...(item.item.dataset && !item.reprintFile ? { records: item.item.dataset.rows } : {}),
          barcode: item.barcode,
          preflight: {
            plates: item.preflight.plates,
            maxInkCoverage: item.preflight.maxInkCoverage,
            ...(item.preflight.minDpi === undefined ? {} : { minDpi: item.preflight.minDpi }),
          },
        });
      }
      const r = await run(
        batchId,
        {
          type: 'RecordClaims',
          items,
          refused,
          printMethod: kind?.printMethod ?? null,
          inkSet: kind?.inkSet ?? null,
          outputProfile: kind?.outputProfile ?? null,
          at: new Date(),
        },
        'claims',
      );
      if (r.state.exists && r.state.status === 'cancelled')
        await release(r.state, 'the batch was cancelled');
      return { items: items.length, refused: refused.length };
    },

    /**
     * Imposes the batch, stores its sheets, ticket and job sheet by content, preflights
     * every sheet, and records it all. A batch that cannot be imposed (a piece larger than
     * the media, a sheet failing its preflight) fails and lets its items go.
     */
    async imposeBatch(batchId: string): Promise<{ status: string; sheets: number }> {
      const b = await load(batchId);
      if (b.status !== 'imposing')
        return { status: b.status, sheets: b.imposition?.sheets.length ?? 0 };
      let imposed: Awaited<ReturnType<typeof imposeFromEvents>>;
      // a batch cancelled while it is imposed: its imposition process is stopped
      const cancelled = new AbortController();
      const watch = setInterval(() => {
        load(batchId)
          .then((now) => now.status === 'cancelled' && cancelled.abort())
          .catch(() => {}); // the store away: the next look tells
      }, CANCEL_LOOK_MS);
      try {
        imposed = await imposeFromEvents(deps, b, true, cancelled.signal);
      } catch (err) {
        if (err instanceof JobCancelledError) return { status: 'cancelled', sheets: 0 };
        const lasting = lastingFailure(err);
        if (lasting === undefined) throw err;
        return fail(b, lasting);
      } finally {
        clearInterval(watch);
      }
      if (imposed.failures.length) return fail(b, `preflight: ${imposed.failures.join('; ')}`);
      if (!imposed.ticket || !imposed.jobSheet) throw new Error('the imposition kept no ticket');
      await run(
        batchId,
        {
          type: 'RecordImposition',
          sheets: imposed.sheets,
          lowerBound: imposed.lowerBound,
          utilisation: imposed.utilisation,
          heuristic: imposed.heuristic,
          ticket: imposed.ticket,
          jobSheet: imposed.jobSheet,
          warnings: imposed.warnings,
          at: new Date(),
        },
        'imposed',
      );
      return { status: 'imposed', sheets: imposed.sheets.length };
    },

    /**
     * Lays a released batch into the label's hot folder (a facility's batch, into the
     * facility's folder within it), whole or not at all: the sheets,
     * the ticket and the job sheet first, the manifest naming them last (a RIP starts on
     * the manifest). Nothing to do without a hot folder.
     */
    async deliverBatch(batchId: string): Promise<{ location: string | null }> {
      const b = await load(batchId);
      if (!b.imposition || b.status === 'cancelled') return { location: null };
      if (b.delivered) return { location: b.delivered.location };
      const label = (await readState(store, labelAggregate, labelStream(b.labelId))).state;
      const folder = label.exists ? label.batching.hotFolder : null;
      if (!folder) return { location: null };
      // a facility's press runs land in its own folder within the label's (its RIP watches that)
      const location = b.facilityId
        ? `hotfolder/${b.labelId}/${folder}/${b.facilityId}/${batchId}`
        : `hotfolder/${b.labelId}/${folder}/${batchId}`;
      const files: { name: string; storageKey: string; sha256: string }[] = [
        ...b.imposition.sheets.map((s) => ({
          name: sheetFileName(s.n),
          storageKey: s.storageKey,
          sha256: s.sha256,
        })),
        { name: 'ticket.xjdf', ...b.imposition.ticket },
        { name: 'job-sheet.pdf', ...b.imposition.jobSheet },
      ];
      for (const f of files) {
        beat();
        const bytes = await storage.get(f.storageKey);
        if (!bytes || sha256(bytes) !== f.sha256)
          throw new Error(`the batch's ${f.name} is missing or changed`);
        await storage.put(`${location}/${f.name}`, bytes);
      }
      const manifest = {
        batchId,
        labelId: b.labelId,
        mode: b.spec.mode,
        media: b.spec.media,
        files: files.map((f) => ({ name: f.name, sha256: f.sha256 })),
      };
      await storage.put(
        `${location}/manifest.json`,
        Buffer.from(JSON.stringify(manifest, null, 2)),
      );
      await run(
        batchId,
        {
          type: 'RecordDelivery',
          location,
          files: [...files.map((f) => f.name), 'manifest.json'],
          at: new Date(),
        },
        'delivered',
      );
      return { location };
    },

    /** Imposes the batch again from its events and records whether every sheet is the same. */
    async replayBatch(batchId: string, replayId: string) {
      const b = await load(batchId);
      if (!b.imposition)
        throw ApplicationFailure.nonRetryable('the batch has no sheets', 'NothingToReplay');
      const again = await imposeFromEvents(deps, b, false);
      const sheets = b.imposition.sheets.map((s) => ({
        n: s.n,
        expected: s.sha256,
        actual: again.sheets.find((x) => x.n === s.n)?.sha256 ?? 'missing',
      }));
      await run(
        batchId,
        { type: 'RecordBatchReplay', replayId, sheets, at: new Date() },
        'replay',
        replayId,
      );
      return { matches: sheets.every((s) => s.expected === s.actual) };
    },

    /**
     * A sheet came off the press: every item on it is printed (with the batch named). An
     * item that cannot move on (its order on hold or cancelled since, or it is further
     * along already) is left as it is and named in the answer.
     */
    async markSheetPrinted(batchId: string, n: number) {
      const b = await load(batchId);
      const sheet = b.imposition?.sheets.find((s) => s.n === n);
      const printed = b.printed.get(n);
      if (!sheet || !printed) return { printed: 0, skipped: [] as string[] };
      const streams = new Map((b.claims?.items ?? []).map((i) => [i.orderItemId, i.stream]));
      const ids = [...new Set(sheet.placements.map((p) => p.orderItemId))];
      const skipped: string[] = [];
      for (const orderItemId of ids) {
        beat();
        const stream = streams.get(orderItemId)!;
        try {
          await handleCommand(
            store,
            orderAggregate,
            stream,
            {
              type: 'RecordItemStage',
              orderItemId,
              stage: 'printed',
              via: 'batch',
              batchId,
              station: printed.station,
              at: new Date(printed.at),
            },
            { ...meta, labelId: b.labelId },
            { eventIds: derivedIds(stream, 'batch-printed', orderItemId, batchId) },
          );
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          skipped.push(`${orderItemId}: ${err.message}`);
        }
      }
      return { printed: ids.length - skipped.length, skipped };
    },

    /** Records that the imposition failed every attempt (its items are let go from the log). */
    async failImposition(batchId: string, reason: string): Promise<void> {
      const b = await load(batchId);
      if (b.status === 'imposing') await fail(b, reason);
    },

    /** Lets the items of a cancelled or failed batch go (none printed is touched). */
    async releaseBatchItems(batchId: string) {
      const b = await load(batchId);
      if (b.status !== 'cancelled' && b.status !== 'failed') return;
      await release(
        b,
        b.status === 'cancelled' ? 'the batch was cancelled' : `the batch failed: ${b.failure}`,
      );
    },
  };

  /** records the failure; its items are let go from the log (BatchImpositionFailed) */
  async function fail(b: Extract<BatchState, { exists: true }>, reason: string) {
    await run(b.batchId, { type: 'FailImposition', reason, at: new Date() }, 'failed');
    return { status: 'failed', sheets: 0 };
  }
}
