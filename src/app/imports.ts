import { randomUUID } from 'node:crypto';
import { importDecider } from '../domain/import/decider.ts';
import {
  type ImportItem,
  type ImportKind,
  importEvents,
  importStream,
} from '../domain/import/events.ts';
import type { EventMetadata, EventStore, Position } from '../eventstore/port.ts';
import { handleCommand } from './command-handler.ts';

export interface RequestedImport {
  importId: string;
  position: Position;
}

/** Records a bulk import (its items in chunk events); a workflow then applies it. */
export async function requestImport(
  store: EventStore,
  input: { kind: ImportKind; supplier: string; items: ImportItem[]; groups?: number },
  metadata: EventMetadata,
): Promise<RequestedImport> {
  const importId = randomUUID();
  const { appended } = await handleCommand(
    store,
    importEvents,
    importDecider,
    importStream(importId),
    {
      type: 'RequestImport',
      importId,
      ...input,
      at: new Date(),
    },
    metadata,
  );
  return { importId, position: appended!.position };
}

export const importWorkflowId = (importId: string) => `import-${importId}`;
