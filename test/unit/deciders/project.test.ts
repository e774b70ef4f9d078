import { describe, it } from 'vitest';
import { projectDecider } from '../../../src/domain/project/decider.ts';
import type { ProjectEvent } from '../../../src/domain/project/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const projectId = '11111111-1111-4111-8111-111111111111';
const labelId = '22222222-2222-4222-8222-222222222222';
const userRef = '33333333-3333-4333-8333-333333333333';
const other = '99999999-9999-4999-8999-999999999999';
const at = new Date('2026-01-02T03:04:05.000Z');
const content = {
  name: 'Mug',
  sku: 'MUG-1',
  supplier: 'supplier-a',
  design: { areas: [{ printArea: 'FRONT', layers: [] }] },
};
const spec = specFor(projectDecider);
const created: ProjectEvent = {
  type: 'ProjectCreated',
  data: { projectId, labelId, userRef, ...content, createdAt: at.toISOString() },
};
const update = {
  type: 'UpdateProject' as const,
  labelId,
  userRef,
  content: { ...content, name: 'Cup' },
  at,
};

describe('project decider', () => {
  it("creates a user's project", () =>
    spec([])
      .when({ type: 'CreateProject', projectId, labelId, userRef, content, at })
      .thenEvents([created]));
  it('refuses to create it twice', () =>
    spec([created])
      .when({ type: 'CreateProject', projectId, labelId, userRef, content, at })
      .thenFails('project_exists'));
  it('lets its own user replace it', () =>
    spec([created])
      .when(update)
      .thenEvents([
        {
          type: 'ProjectUpdated',
          data: { projectId, ...content, name: 'Cup', updatedAt: at.toISOString() },
        },
      ]));
  it("answers another user's or another label's project as not found", () => {
    spec([created])
      .when({ ...update, userRef: other })
      .thenFails('project_not_found');
    spec([created])
      .when({ ...update, labelId: other })
      .thenFails('project_not_found');
  });
  it("lets the label's admin delete it, once", () => {
    const deleted: ProjectEvent = {
      type: 'ProjectDeleted',
      data: { projectId, deletedAt: at.toISOString() },
    };
    spec([created]).when({ type: 'DeleteProject', labelId, at }).thenEvents([deleted]);
    spec([created, deleted])
      .when({ type: 'DeleteProject', labelId, at })
      .thenFails('project_not_found');
    spec([created, deleted]).when(update).thenFails('project_not_found');
  });
});
