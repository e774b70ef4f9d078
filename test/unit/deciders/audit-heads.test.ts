import { describe, it } from 'vitest';
import { auditHeadDecider } from '../../../src/domain/audit/decider.ts';
import { type AuditHeadEvent, auditHeadEvents } from '../../../src/domain/audit/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const labelId = '22222222-2222-4222-8222-222222222222';
const head = {
  treeSize: 42,
  rootHash: 'ab'.repeat(32),
  timestamp: '2026-11-24T07:59:50.000Z',
  keyId: '0123456789abcdef',
  signature: 'c2lnbmF0dXJl',
};
const published = (at: string): AuditHeadEvent => ({
  type: 'TreeHeadPublished',
  data: { labelId, day: at.slice(0, 10), head, publishedAt: at },
});
const spec = specFor(auditHeadDecider);
const publish = (at: string) => ({
  type: 'PublishTreeHead' as const,
  labelId,
  head,
  at: new Date(at),
});

describe('daily tree head decider', () => {
  it("publishes a label's first head", () =>
    spec([])
      .when(publish('2026-11-24T08:00:00.000Z'))
      .thenEvents([published('2026-11-24T08:00:00.000Z')]));
  it('publishes nothing more the same UTC day, however often asked', () =>
    spec([published('2026-11-24T00:00:01.000Z')])
      .when(publish('2026-11-24T23:59:59.999Z'))
      .thenEvents([]));
  it('publishes again the next UTC day', () =>
    spec([published('2026-11-24T23:59:59.000Z')])
      .when(publish('2026-11-25T00:00:00.000Z'))
      .thenEvents([published('2026-11-25T00:00:00.000Z')]));
  it('publishes nothing for a day before the last (a clock gone back)', () =>
    spec([published('2026-11-25T10:00:00.000Z')])
      .when(publish('2026-11-24T10:00:00.000Z'))
      .thenEvents([]));
  it('keeps what it publishes valid against its schema', () =>
    spec([])
      .when(publish('2026-11-24T08:00:00.000Z'))
      .thenEvents(
        [published('2026-11-24T08:00:00.000Z')].map((e) => ({
          type: e.type,
          data: auditHeadEvents.deserialize({ ...auditHeadEvents.serialize(e) }).data,
        })) as AuditHeadEvent[],
      ));
});
