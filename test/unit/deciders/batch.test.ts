import { describe, it } from 'vitest';
import { batchDecider } from '../../../src/domain/batch/decider.ts';
import type { BatchEvent, BatchItem, BatchSpec } from '../../../src/domain/batch/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const at = new Date('2026-11-24T10:00:00.000Z');
const iso = at.toISOString();
const batchId = '55555555-5555-4555-8555-555555555555';
const labelId = '22222222-2222-4222-8222-222222222222';
const orderItemId = '11111111-1111-4111-8111-111111111111';
const spec = specFor(batchDecider);
const batchSpec: BatchSpec = {
  mode: 'gang',
  media: { kind: 'roll', preset: 'roll-560mm', widthMm: 560, heightMm: 5000 },
  gutterMm: 3,
  marginMm: 5,
  allowRotation: true,
  copies: 'quantity',
};
const item: BatchItem = {
  orderItemId,
  stream: 'Order-x',
  orderId: 'SHOP-1',
  itemId: 'l1',
  sku: 'ST-1',
  quantity: 2,
  copies: 2,
  printMethod: 'digital',
  file: { storageKey: 'k', sha256: 'f'.repeat(64), pages: 1 },
  barcode: { format: 'code128', value: orderItemId },
  preflight: { plates: ['Black'], maxInkCoverage: 100 },
};
const requested: BatchEvent = {
  type: 'BatchRequested',
  data: {
    batchId,
    labelId,
    spec: batchSpec,
    candidates: [{ orderItemId, stream: 'Order-x' }],
    refused: [],
    source: { kind: 'request' },
    requestedAt: iso,
  },
};
const claims = {
  items: [item],
  refused: [],
  printMethod: 'digital',
  inkSet: 'process (CMYK)',
  outputProfile: { sha256: 'a'.repeat(64), description: 'Test CMYK' },
};
const claimed: BatchEvent = { type: 'BatchItemsClaimed', data: { ...claims, claimedAt: iso } };
const sheet = {
  n: 1,
  storageKey: 's1',
  sha256: 'e'.repeat(64),
  bytes: 10,
  widthMm: 560,
  heightMm: 200,
  utilisation: 0.5,
  placements: [],
};
const imposition = {
  sheets: [sheet],
  lowerBound: 1,
  utilisation: 0.5,
  heuristic: 'area, max area',
  ticket: { storageKey: 't', sha256: 't'.repeat(64) },
  jobSheet: { storageKey: 'j', sha256: 'j'.repeat(64) },
  warnings: [],
};
const imposed: BatchEvent = { type: 'BatchImposed', data: { ...imposition, imposedAt: iso } };
const replayId = '77777777-7777-4777-8777-777777777777';

describe('batch decider', () => {
  it('is requested once: the same id again (a rule in the same window) opens nothing', () => {
    const request = {
      type: 'RequestBatch' as const,
      batchId,
      labelId,
      spec: batchSpec,
      candidates: [{ orderItemId, stream: 'Order-x' }],
      refused: [],
      source: { kind: 'request' as const },
      at,
    };
    spec([]).when(request).thenEvents([requested]);
    spec([requested]).when(request).thenEvents([]);
  });

  it('records its claims once, and fails at once when it could take nothing', () => {
    spec([requested])
      .when({ type: 'RecordClaims', ...claims, at })
      .thenEvents([claimed]);
    spec([requested, claimed])
      .when({ type: 'RecordClaims', ...claims, at })
      .thenEvents([]);
    spec([requested])
      .when({ type: 'RecordClaims', ...claims, items: [], at })
      .thenEvents([
        { type: 'BatchItemsClaimed', data: { ...claims, items: [], claimedAt: iso } },
        {
          type: 'BatchImpositionFailed',
          data: { reason: 'no item could be taken into the batch', failedAt: iso },
        },
      ]);
  });

  it('records no claims and no sheets once cancelled', () => {
    const cancelled: BatchEvent = { type: 'BatchCancelled', data: { cancelledAt: iso } };
    spec([requested, cancelled])
      .when({ type: 'RecordClaims', ...claims, at })
      .thenEvents([]);
    spec([requested, claimed, cancelled])
      .when({ type: 'RecordImposition', ...imposition, at })
      .thenEvents([]);
    spec([requested, cancelled]).when({ type: 'CancelBatch', at }).thenEvents([]);
  });

  it('prints a sheet once, refuses unknown sheets and a cancelled batch', () => {
    const given = [requested, claimed, imposed];
    spec(given)
      .when({ type: 'RecordSheetPrinted', n: 1, station: 'Press 1', at })
      .thenEvents([
        { type: 'BatchSheetPrinted', data: { n: 1, station: 'Press 1', printedAt: iso } },
      ]);
    const printedSheet: BatchEvent = {
      type: 'BatchSheetPrinted',
      data: { n: 1, printedAt: iso },
    };
    spec([...given, printedSheet])
      .when({ type: 'RecordSheetPrinted', n: 1, at })
      .thenEvents([]);
    spec(given).when({ type: 'RecordSheetPrinted', n: 2, at }).thenFails('sheet_not_found');
    spec([...given, { type: 'BatchCancelled', data: { cancelledAt: iso } }])
      .when({ type: 'RecordSheetPrinted', n: 1, at })
      .thenFails('batch_cancelled');
    // every sheet printed: nothing is left to cancel
    spec([...given, printedSheet])
      .when({ type: 'CancelBatch', at })
      .thenFails('batch_printed');
  });

  it('replays only what has sheets, and records each verdict once', () => {
    spec([requested, claimed])
      .when({ type: 'RequestBatchReplay', replayId, at })
      .thenFails('nothing_to_replay');
    const asked: BatchEvent = {
      type: 'BatchReplayRequested',
      data: { replayId, requestedAt: iso },
    };
    spec([requested, claimed, imposed])
      .when({ type: 'RequestBatchReplay', replayId, at })
      .thenEvents([asked]);
    const sheets = [{ n: 1, expected: sheet.sha256, actual: 'd'.repeat(64) }];
    const replayed: BatchEvent = {
      type: 'BatchReplayed',
      data: { replayId, matches: false, sheets, replayedAt: iso },
    };
    spec([requested, claimed, imposed, asked])
      .when({ type: 'RecordBatchReplay', replayId, sheets, at })
      .thenEvents([replayed]);
    spec([requested, claimed, imposed, asked, replayed])
      .when({ type: 'RecordBatchReplay', replayId, sheets, at })
      .thenEvents([]);
  });

  it('is not found before it is requested', () => {
    spec([]).when({ type: 'CancelBatch', at }).thenFails('batch_not_found');
  });
});
