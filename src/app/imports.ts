import { randomUUID } from 'node:crypto';
import { findImport, type ImportView } from '#projections/imports';
import { importAggregate } from '../domain/import/decider.ts';
import {
  CHUNK_SIZE,
  type ImportItem,
  type ImportKind,
  importChunkEvents,
  importChunkStream,
  importStream,
} from '../domain/import/events.ts';
import type { Configuration } from '../domain/product/configuration.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata, Position } from '../eventstore/port.ts';
import { handleCommand } from './command-handler.ts';
import type { AppContext } from './context.ts';

export interface RequestedImport {
  importId: string;
  position: Position;
}

/**
 * Records a bulk import: its chunks first, each in a stream of its own, then the
 * request itself; a workflow then applies it. An import cut off before its request was
 * recorded leaves only unreferenced chunk streams behind.
 */
export async function requestImport(
  { store }: AppContext,
  input: { kind: ImportKind; supplier: string; items: ImportItem[]; groups?: number },
  metadata: EventMetadata,
): Promise<RequestedImport> {
  const importId = randomUUID();
  const { items, ...rest } = input;
  const chunks: ImportItem[][] = [];
  for (let i = 0; i < items.length; i += CHUNK_SIZE) chunks.push(items.slice(i, i + CHUNK_SIZE));
  await Promise.all(
    chunks.map((chunkItems, chunk) => {
      const event = importChunkEvents.serialize({
        type: 'ImportChunkAdded',
        data: { importId, chunk, items: chunkItems },
      });
      // a chunk is data, not an aggregate: written once, at no_stream, no decision to make
      return store.append(
        importChunkStream(importId, chunk),
        [{ id: randomUUID(), ...event, metadata }],
        'no_stream',
      );
    }),
  );
  const { appended } = await handleCommand(
    store,
    importAggregate,
    importStream(importId),
    {
      type: 'RequestImport',
      importId,
      ...rest,
      total: items.length,
      chunkCount: chunks.length,
      at: new Date(),
    },
    metadata,
  );
  return { importId, position: appended!.position };
}

/** A catalogue of a supplier: configurations that replace those with the same SKU. */
export async function importCatalog(
  ctx: AppContext,
  supplier: string,
  configurations: (Configuration & { sku: string; supplier?: string | undefined })[],
  metadata: EventMetadata,
): Promise<{ importId: string; accepted: number }> {
  const wrong = configurations.findIndex(
    (c) => c.supplier !== undefined && c.supplier !== supplier,
  );
  if (wrong >= 0) {
    throw new DomainError(
      'invalid',
      `${wrong}.supplier must be ${supplier}, the supplier in the path`,
      'validation_failed',
    );
  }
  const items = configurations.map(({ sku, supplier: _s, ...configuration }) => ({
    sku,
    configuration,
  }));
  const { importId, position } = await requestImport(
    ctx,
    { kind: 'catalog', supplier, items },
    metadata,
  );
  // its progress can be read as soon as the request is answered
  await ctx.readModels.seen('imports', position);
  return { importId, accepted: items.length };
}

/**
 * An import's progress; one of another kind is not found. An import reads `completed`
 * only once every configuration it holds can be found and used: the configurations'
 * read model has taken the log up to the import's completion (it applies thousands of
 * events where the imports' read model applies three, and may be seconds behind).
 */
export async function importProgress(
  ctx: AppContext,
  importId: string,
  kind: ImportKind,
): Promise<ImportView> {
  const row = await findImport(ctx.pool, importId, kind);
  if (!row) throw new DomainError('not_found', 'no such import', 'import_not_found');
  const { completedPosition, ...view } = row;
  if (view.status === 'completed' && !(await ctx.readModels.seen('offerings', completedPosition))) {
    const { completedAt: _, ...applying } = view;
    return { ...applying, status: 'running' };
  }
  return view;
}
