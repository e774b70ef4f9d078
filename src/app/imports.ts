import { randomUUID } from 'node:crypto';
import { importDecider } from '../domain/import/decider.ts';
import {
  CHUNK_SIZE,
  type ImportItem,
  type ImportKind,
  importChunkEvents,
  importChunkStream,
  importEvents,
  importStream,
} from '../domain/import/events.ts';
import type { EventMetadata, EventStore, Position } from '../eventstore/port.ts';
import { handleCommand } from './command-handler.ts';

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
  store: EventStore,
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
      return store.append(
        importChunkStream(importId, chunk),
        [{ id: randomUUID(), ...event, metadata }],
        'no_stream',
      );
    }),
  );
  const { appended } = await handleCommand(
    store,
    importEvents,
    importDecider,
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
