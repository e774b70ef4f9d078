import { describe, it } from 'vitest';
import { importDecider } from '../../../src/domain/import/decider.ts';
import type { ImportEvent } from '../../../src/domain/import/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const importId = '11111111-1111-4111-8111-111111111111';
const at = new Date('2026-01-02T03:04:05.000Z');
const spec = specFor(importDecider);
const requested: ImportEvent = {
  type: 'ImportRequested',
  data: {
    importId,
    kind: 'printshop-skus',
    supplier: 'printshop',
    total: 300,
    chunkCount: 2,
    groups: 3,
    requestedAt: at.toISOString(),
  },
};
const applied = (
  chunk: number,
  created: number,
  skipped: { sku: string; reason: string }[] = [],
): ImportEvent => ({
  type: 'ImportChunkApplied',
  data: { importId, chunk, created, skipped },
});

describe('import decider', () => {
  it('records an import request', () =>
    spec([])
      .when({
        type: 'RequestImport',
        importId,
        kind: 'printshop-skus',
        supplier: 'printshop',
        total: 300,
        chunkCount: 2,
        groups: 3,
        at,
      })
      .thenEvents([requested]));
  it('records each chunk once: a chunk applied again (a retried activity) records nothing', () => {
    spec([requested])
      .when({ type: 'RecordChunkApplied', chunk: 0, created: 250, skipped: [] })
      .thenEvents([applied(0, 250)]);
    spec([requested, applied(0, 250)])
      .when({ type: 'RecordChunkApplied', chunk: 0, created: 250, skipped: [] })
      .thenEvents([]);
  });
  it('completes only once every chunk is applied, with the totals, and once', () => {
    const skipped = [{ sku: 'X-1', reason: 'already on the platform' }];
    spec([requested, applied(0, 250)])
      .when({ type: 'CompleteImport', at })
      .thenFails('import_incomplete');
    const done: ImportEvent = {
      type: 'ImportCompleted',
      data: { importId, created: 299, skipped: 1, completedAt: at.toISOString() },
    };
    spec([requested, applied(0, 250), applied(1, 49, skipped)])
      .when({ type: 'CompleteImport', at })
      .thenEvents([done]);
    spec([requested, applied(0, 250), applied(1, 49, skipped), done])
      .when({ type: 'CompleteImport', at })
      .thenEvents([]);
  });
  it('knows no chunk of an import that was never requested', () =>
    spec([])
      .when({ type: 'RecordChunkApplied', chunk: 0, created: 1, skipped: [] })
      .thenFails('import_not_found'));
});
