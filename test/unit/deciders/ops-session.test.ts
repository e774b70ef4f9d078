import { describe, it } from 'vitest';
import { opsSessionDecider } from '../../../src/domain/ops-session/decider.ts';
import type { OpsSessionEvent } from '../../../src/domain/ops-session/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const sessionId = '33333333-3333-4333-8333-333333333333';
const at = new Date('2026-11-24T08:00:00.000Z');
const expiresAt = new Date('2026-11-24T16:00:00.000Z');
const viewer = { kind: 'admin' as const, labelId: '22222222-2222-4222-8222-222222222222' };
const started: OpsSessionEvent = {
  type: 'OpsSessionStarted',
  data: { sessionId, viewer, startedAt: at.toISOString(), expiresAt: expiresAt.toISOString() },
};
const ended: OpsSessionEvent = {
  type: 'OpsSessionEnded',
  data: { reason: 'logged_out', endedAt: '2026-11-24T09:00:00.000Z' },
};
const spec = specFor(opsSessionDecider);

describe('ops session decider', () => {
  it('starts a session', () =>
    spec([])
      .when({ type: 'StartOpsSession', sessionId, viewer, at, expiresAt })
      .thenEvents([started]));
  it('refuses to start one twice', () =>
    spec([started])
      .when({ type: 'StartOpsSession', sessionId, viewer, at, expiresAt })
      .thenFails('ops_session_exists'));
  it('ends a session at logout', () =>
    spec([started])
      .when({ type: 'EndOpsSession', reason: 'logged_out', at: new Date(ended.data.endedAt) })
      .thenEvents([ended]));
  it('ends an ended session again with nothing recorded', () =>
    spec([started, ended])
      .when({ type: 'EndOpsSession', reason: 'ended_by_viewer', at })
      .thenEvents([]));
  it('cannot end a session that never was', () =>
    spec([])
      .when({ type: 'EndOpsSession', reason: 'logged_out', at })
      .thenFails('ops_session_not_found'));
});
