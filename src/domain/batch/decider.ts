import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import {
  type BatchEvent,
  type BatchItem,
  type BatchSpec,
  batchEvents,
  batchStream,
  type Refusal,
  type Sheet,
} from './events.ts';

type Claims = {
  items: BatchItem[];
  refused: Refusal[];
  printMethod: string | null;
  inkSet: string | null;
  outputProfile: { sha256: string; description: string } | null;
};
type Imposition = {
  sheets: Sheet[];
  lowerBound: number;
  utilisation: number;
  heuristic: string;
  ticket: { storageKey: string; sha256: string };
  jobSheet: { storageKey: string; sha256: string };
  warnings: string[];
};

export type BatchCommand =
  | {
      type: 'RequestBatch';
      batchId: string;
      labelId: string;
      /** the facility whose press run it is (its own items only); none: the label's */
      facilityId?: string | undefined;
      spec: BatchSpec;
      candidates: { orderItemId: string; stream: string }[];
      refused: Refusal[];
      source: { kind: 'request' } | { kind: 'rule'; rule: string };
      at: Date;
    }
  | ({ type: 'RecordClaims'; at: Date } & Claims)
  | ({ type: 'RecordImposition'; at: Date } & Imposition)
  | { type: 'FailImposition'; reason: string; at: Date }
  | { type: 'RecordDelivery'; location: string; files: string[]; at: Date }
  | { type: 'RecordSheetPrinted'; n: number; station?: string | undefined; at: Date }
  | { type: 'CancelBatch'; reason?: string | undefined; at: Date }
  | { type: 'RequestBatchReplay'; replayId: string; at: Date }
  | {
      type: 'RecordBatchReplay';
      replayId: string;
      sheets: { n: number; expected: string; actual: string }[];
      at: Date;
    };

export type BatchStatus = 'claiming' | 'imposing' | 'imposed' | 'printed' | 'failed' | 'cancelled';

export interface BatchReplay {
  replayId: string;
  requestedAt: string;
  at: string | undefined;
  matches: boolean | undefined;
  sheets: { n: number; expected: string; actual: string }[];
}

export type BatchState =
  | { exists: false }
  | {
      exists: true;
      batchId: string;
      labelId: string;
      facilityId: string | undefined;
      spec: BatchSpec;
      source: { kind: 'request' } | { kind: 'rule'; rule: string };
      status: BatchStatus;
      requestedAt: string;
      candidates: { orderItemId: string; stream: string }[];
      /** refused when asked, then when claimed */
      refused: Refusal[];
      claims: (Claims & { claimedAt: string }) | undefined;
      imposition: (Imposition & { imposedAt: string }) | undefined;
      failure: string | undefined;
      delivered: { location: string; files: string[]; at: string } | undefined;
      /** sheet number -> when it came off the press, and where */
      printed: ReadonlyMap<number, { at: string; station: string | undefined }>;
      cancelledAt: string | undefined;
      replays: BatchReplay[];
    };

type Existing = Extract<BatchState, { exists: true }>;

const notFound = () => new DomainError('not_found', 'batch not found', 'batch_not_found');
const existing = (state: BatchState): Existing => {
  if (!state.exists) throw notFound();
  return state;
};

export const batchDecider: Decider<BatchCommand, BatchEvent, BatchState> = {
  initialState: { exists: false },
  decide(command, state) {
    const at = command.at.toISOString();
    switch (command.type) {
      case 'RequestBatch': {
        // a rule's batch has an id derived from its window: asked twice, opened once
        if (state.exists) return [];
        const { batchId, labelId, facilityId, spec, candidates, refused, source } = command;
        return [
          {
            type: 'BatchRequested',
            data: {
              batchId,
              labelId,
              ...(facilityId ? { facilityId } : {}),
              spec,
              candidates,
              refused,
              source,
              requestedAt: at,
            },
          },
        ];
      }
      case 'RecordClaims': {
        const b = existing(state);
        if (b.status !== 'claiming') return [];
        const { items, refused, printMethod, inkSet, outputProfile } = command;
        return [
          {
            type: 'BatchItemsClaimed',
            data: { items, refused, printMethod, inkSet, outputProfile, claimedAt: at },
          },
          ...(items.length === 0
            ? [
                {
                  type: 'BatchImpositionFailed' as const,
                  data: { reason: 'no item could be taken into the batch', failedAt: at },
                },
              ]
            : []),
        ];
      }
      case 'RecordImposition': {
        const b = existing(state);
        if (b.status !== 'imposing') return [];
        const { sheets, lowerBound, utilisation, heuristic, ticket, jobSheet, warnings } = command;
        return [
          {
            type: 'BatchImposed',
            data: {
              sheets,
              lowerBound,
              utilisation,
              heuristic,
              ticket,
              jobSheet,
              warnings,
              imposedAt: at,
            },
          },
        ];
      }
      case 'FailImposition': {
        const b = existing(state);
        if (b.status !== 'imposing' && b.status !== 'claiming') return [];
        return [{ type: 'BatchImpositionFailed', data: { reason: command.reason, failedAt: at } }];
      }
      case 'RecordDelivery': {
        const b = existing(state);
        if (b.delivered || !b.imposition) return [];
        return [
          {
            type: 'BatchDelivered',
            data: { location: command.location, files: command.files, deliveredAt: at },
          },
        ];
      }
      case 'RecordSheetPrinted': {
        const b = existing(state);
        if (b.status === 'cancelled')
          throw new DomainError('conflict', 'the batch was cancelled', 'batch_cancelled');
        const sheet = b.imposition?.sheets.find((s) => s.n === command.n);
        if (!sheet)
          throw new DomainError('not_found', 'the batch has no such sheet', 'sheet_not_found');
        if (b.printed.has(command.n)) return []; // scanned again
        return [
          {
            type: 'BatchSheetPrinted',
            data: {
              n: command.n,
              ...(command.station ? { station: command.station } : {}),
              printedAt: at,
            },
          },
        ];
      }
      case 'CancelBatch': {
        const b = existing(state);
        if (b.status === 'cancelled') return [];
        if (b.status === 'printed')
          throw new DomainError(
            'conflict',
            'every sheet of the batch is printed: nothing is left to cancel',
            'batch_printed',
          );
        return [
          {
            type: 'BatchCancelled',
            data: { ...(command.reason ? { reason: command.reason } : {}), cancelledAt: at },
          },
        ];
      }
      case 'RequestBatchReplay': {
        const b = existing(state);
        if (!b.imposition)
          throw new DomainError(
            'conflict',
            'the batch has no sheets yet: nothing to replay',
            'nothing_to_replay',
          );
        if (b.replays.some((r) => r.replayId === command.replayId)) return [];
        return [
          { type: 'BatchReplayRequested', data: { replayId: command.replayId, requestedAt: at } },
        ];
      }
      case 'RecordBatchReplay': {
        const b = existing(state);
        const replay = b.replays.find((r) => r.replayId === command.replayId);
        // a replay gives its verdict once; a retried activity records nothing twice
        if (!replay || replay.at !== undefined) return [];
        return [
          {
            type: 'BatchReplayed',
            data: {
              replayId: command.replayId,
              matches: command.sheets.every((s) => s.expected === s.actual),
              sheets: command.sheets,
              replayedAt: at,
            },
          },
        ];
      }
    }
  },
  evolve(state, event) {
    if (event.type === 'BatchRequested') {
      const d = event.data;
      return {
        exists: true,
        batchId: d.batchId,
        labelId: d.labelId,
        facilityId: d.facilityId,
        spec: d.spec,
        source: d.source,
        status: 'claiming',
        requestedAt: d.requestedAt,
        candidates: d.candidates,
        refused: d.refused,
        claims: undefined,
        imposition: undefined,
        failure: undefined,
        delivered: undefined,
        printed: new Map(),
        cancelledAt: undefined,
        replays: [],
      };
    }
    if (!state.exists) return state;
    switch (event.type) {
      case 'BatchItemsClaimed': {
        const { claimedAt, ...claims } = event.data;
        return {
          ...state,
          status: state.status === 'claiming' ? 'imposing' : state.status,
          claims: { ...claims, claimedAt },
          refused: [...state.refused, ...claims.refused],
        };
      }
      case 'BatchImposed': {
        const { imposedAt, ...imposition } = event.data;
        return {
          ...state,
          status: state.status === 'cancelled' ? state.status : 'imposed',
          imposition: { ...imposition, imposedAt },
        };
      }
      case 'BatchImpositionFailed':
        return {
          ...state,
          status: state.status === 'cancelled' ? state.status : 'failed',
          failure: event.data.reason,
        };
      case 'BatchDelivered':
        return {
          ...state,
          delivered: {
            location: event.data.location,
            files: event.data.files,
            at: event.data.deliveredAt,
          },
        };
      case 'BatchSheetPrinted': {
        const printed = new Map(state.printed);
        printed.set(event.data.n, { at: event.data.printedAt, station: event.data.station });
        const all = state.imposition?.sheets.every((s) => printed.has(s.n)) ?? false;
        return { ...state, printed, status: all ? 'printed' : state.status };
      }
      case 'BatchCancelled':
        return { ...state, status: 'cancelled', cancelledAt: event.data.cancelledAt };
      case 'BatchReplayRequested':
        return {
          ...state,
          replays: [
            ...state.replays,
            {
              replayId: event.data.replayId,
              requestedAt: event.data.requestedAt,
              at: undefined,
              matches: undefined,
              sheets: [],
            },
          ],
        };
      case 'BatchReplayed':
        return {
          ...state,
          replays: state.replays.map((r) =>
            r.replayId === event.data.replayId
              ? {
                  ...r,
                  at: event.data.replayedAt,
                  matches: event.data.matches,
                  sheets: event.data.sheets,
                }
              : r,
          ),
        };
      default:
        return state;
    }
  },
};

export const batchAggregate: Aggregate<
  BatchCommand,
  BatchEvent,
  BatchState,
  Parameters<typeof batchStream>
> = {
  events: batchEvents,
  decider: batchDecider,
  stream: batchStream,
};
