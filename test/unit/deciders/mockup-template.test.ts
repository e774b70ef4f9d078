import { describe, it } from 'vitest';
import { mockupTemplateDecider } from '../../../src/domain/mockup-template/decider.ts';
import type {
  MockupTemplateEvent,
  TemplateContent,
} from '../../../src/domain/mockup-template/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const labelId = '22222222-2222-4222-8222-222222222222';
const templateId = 'mug-front';
const at = new Date('2026-11-25T10:00:00.000Z');
const iso = at.toISOString();
const spec = specFor(mockupTemplateDecider);
const content: TemplateContent = {
  match: { baseSKU: 'MUG', productColor: 'white' },
  photo: { sha256: 'a'.repeat(64), type: 'image/jpeg', width: 2000, height: 1500 },
  areas: [
    {
      printArea: 'FRONT',
      corners: [
        [500, 400],
        [1500, 420],
        [1480, 1100],
        [520, 1080],
      ],
      blend: 'multiply',
    },
  ],
};
const set = (c: TemplateContent, revision: number): MockupTemplateEvent => ({
  type: 'MockupTemplateSet',
  data: { labelId, templateId, ...c, revision, setAt: iso },
});
const deleted: MockupTemplateEvent = {
  type: 'MockupTemplateDeleted',
  data: { labelId, templateId, deletedAt: iso },
};
const put = (c: TemplateContent) => ({
  type: 'SetMockupTemplate' as const,
  labelId,
  templateId,
  content: c,
  at,
});
const remove = { type: 'DeleteMockupTemplate' as const, labelId, templateId, at };

describe('mockup template decider', () => {
  it('records revisions: the first is 1, each change one more, the same content again none', () => {
    spec([])
      .when(put(content))
      .thenEvents([set(content, 1)]);
    spec([set(content, 1)])
      .when(put(content))
      .thenEvents([]);
    const moved = { ...content, areas: [{ ...content.areas[0]!, blend: 'normal' as const }] };
    spec([set(content, 1)])
      .when(put(moved))
      .thenEvents([set(moved, 2)]);
  });

  it('deletes a set template; after a deletion the next one goes on from the last revision', () => {
    spec([set(content, 1)])
      .when(remove)
      .thenEvents([deleted]);
    spec([set(content, 1), deleted])
      .when(remove)
      .thenFails('template_not_found');
    spec([]).when(remove).thenFails('template_not_found');
    spec([set(content, 1), set(content, 2), deleted])
      .when(put(content))
      .thenEvents([set(content, 3)]);
  });
});
