import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import { type ImportEvent, type ImportKind, importEvents, importStream } from './events.ts';

export type ImportCommand =
  | {
      type: 'RequestImport';
      importId: string;
      kind: ImportKind;
      supplier: string;
      total: number;
      chunkCount: number;
      groups?: number;
      at: Date;
    }
  | {
      type: 'RecordChunkApplied';
      chunk: number;
      created: number;
      skipped: { sku: string; reason: string }[];
    }
  | { type: 'CompleteImport'; at: Date };

export type ImportState =
  | { exists: false }
  | {
      exists: true;
      importId: string;
      kind: ImportKind;
      supplier: string;
      chunkCount: number;
      applied: Map<number, { created: number; skipped: number }>;
      completed: boolean;
    };

export const importDecider: Decider<ImportCommand, ImportEvent, ImportState> = {
  initialState: { exists: false },
  decide(command, state) {
    switch (command.type) {
      case 'RequestImport': {
        if (state.exists) throw new DomainError('conflict', 'import exists', 'import_exists');
        const { importId, kind, supplier, total, chunkCount, groups, at } = command;
        return [
          {
            type: 'ImportRequested',
            data: {
              importId,
              kind,
              supplier,
              total,
              chunkCount,
              ...(groups !== undefined ? { groups } : {}),
              requestedAt: at.toISOString(),
            },
          },
        ];
      }
      case 'RecordChunkApplied': {
        if (!state.exists)
          throw new DomainError('not_found', 'import not found', 'import_not_found');
        if (state.applied.has(command.chunk)) return [];
        const { chunk, created, skipped } = command;
        return [
          {
            type: 'ImportChunkApplied',
            data: { importId: state.importId, chunk, created, skipped },
          },
        ];
      }
      case 'CompleteImport': {
        if (!state.exists)
          throw new DomainError('not_found', 'import not found', 'import_not_found');
        if (state.completed) return [];
        if (state.applied.size < state.chunkCount) {
          throw new DomainError('conflict', 'import has chunks left to apply', 'import_incomplete');
        }
        let created = 0;
        let skipped = 0;
        for (const a of state.applied.values()) {
          created += a.created;
          skipped += a.skipped;
        }
        return [
          {
            type: 'ImportCompleted',
            data: {
              importId: state.importId,
              created,
              skipped,
              completedAt: command.at.toISOString(),
            },
          },
        ];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ImportRequested':
        return {
          exists: true,
          importId: event.data.importId,
          kind: event.data.kind,
          supplier: event.data.supplier,
          chunkCount: event.data.chunkCount,
          applied: new Map(),
          completed: false,
        };
      case 'ImportChunkApplied': {
        if (!state.exists) return state;
        const applied = new Map(state.applied);
        applied.set(event.data.chunk, {
          created: event.data.created,
          skipped: event.data.skipped.length,
        });
        return { ...state, applied };
      }
      case 'ImportCompleted':
        return state.exists ? { ...state, completed: true } : state;
    }
  },
};

export const importAggregate: Aggregate<
  ImportCommand,
  ImportEvent,
  ImportState,
  Parameters<typeof importStream>
> = {
  events: importEvents,
  decider: importDecider,
  stream: importStream,
};
