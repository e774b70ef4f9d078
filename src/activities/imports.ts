import { ApplicationFailure } from '@temporalio/common';
import { handleCommand, loadState } from '../app/command-handler.ts';
import { importAggregate } from '../domain/import/decider.ts';
import {
  type ImportItem,
  importChunkEvents,
  importChunkStream,
  importStream,
} from '../domain/import/events.ts';
import { productAggregate, productDecider } from '../domain/product/decider.ts';
import { productEvents, productStream } from '../domain/product/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { deterministicId } from '../domain/shared/ids.ts';
import type { EventStore } from '../eventstore/port.ts';

const PARALLEL = 16;
const meta = { actor: 'workflow:import' };

async function forEachParallel<T>(items: T[], n: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

/**
 * The import activities. Each is idempotent: events get ids derived from the import,
 * chunk and SKU, so a retried or resumed activity appends nothing twice.
 */
export function importActivities(store: EventStore) {
  async function state(importId: string) {
    const s = await loadState(store, importAggregate, importStream(importId));
    if (!s.exists)
      throw ApplicationFailure.nonRetryable(`import ${importId} not found`, 'ImportNotFound');
    return s;
  }

  async function applyItem(
    importId: string,
    kind: 'catalog' | 'printshop-skus',
    supplier: string,
    item: ImportItem,
  ): Promise<{ sku: string; reason: string } | undefined> {
    const stream = productStream(supplier, item.sku);
    const id = deterministicId('import', importId, item.sku);
    const command = {
      type: kind === 'catalog' ? ('ImportConfiguration' as const) : ('AddConfiguration' as const),
      supplier,
      sku: item.sku,
      configuration: item.configuration,
      importId,
    };
    try {
      if (kind === 'catalog') {
        // decided on the initial state, appended at `any`, not through handleCommand: a
        // catalogue import replaces whatever is there, so no state needs reading and the
        // append is one round trip (10,000 configurations in one request)
        const [event] = productDecider.decide(command, productDecider.initialState);
        await store.append(
          stream,
          [{ id, ...productEvents.serialize(event!), metadata: meta }],
          'any',
        );
      } else {
        await handleCommand(store, productAggregate, stream, command, meta, { eventIds: () => id });
      }
      return undefined;
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'sku_exists')) throw err;
      const mine = (await store.readStream(stream)).some((e) => e.id === id);
      return mine ? undefined : { sku: item.sku, reason: 'already on the platform' };
    }
  }

  return {
    async describeImport(importId: string) {
      const s = await state(importId);
      return { chunkCount: s.chunkCount, applied: [...s.applied.keys()], completed: s.completed };
    },

    async applyImportChunk(importId: string, chunk: number) {
      const s = await state(importId);
      const done = s.applied.get(chunk);
      if (done) return done;
      const [stored] = await store.readStream(importChunkStream(importId, chunk));
      const added = stored && importChunkEvents.deserialize(stored);
      if (!added) {
        throw ApplicationFailure.nonRetryable(
          `import ${importId} has no chunk ${chunk}`,
          'ImportChunkMissing',
        );
      }
      const skipped: { sku: string; reason: string }[] = [];
      await forEachParallel(added.data.items, PARALLEL, async (item) => {
        const skip = await applyItem(importId, s.kind, s.supplier, item);
        if (skip) skipped.push(skip);
      });
      skipped.sort((a, b) => a.sku.localeCompare(b.sku));
      const created = added.data.items.length - skipped.length;
      await handleCommand(
        store,
        importAggregate,
        importStream(importId),
        { type: 'RecordChunkApplied', chunk, created, skipped },
        meta,
        { eventIds: () => deterministicId('import-chunk', importId, String(chunk)) },
      );
      return { created, skipped: skipped.length };
    },

    async completeImport(importId: string) {
      const r = await handleCommand(
        store,
        importAggregate,
        importStream(importId),
        { type: 'CompleteImport', at: new Date() },
        meta,
        { eventIds: () => deterministicId('import-completed', importId) },
      );
      const s = r.state;
      if (!s.exists) throw ApplicationFailure.nonRetryable('import vanished', 'ImportNotFound');
      let created = 0;
      let skipped = 0;
      for (const a of s.applied.values()) {
        created += a.created;
        skipped += a.skipped;
      }
      return { created, skipped };
    },
  };
}
