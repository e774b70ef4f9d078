import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import {
  type OPS_SESSION_END_REASONS,
  type OpsSessionEvent,
  type OpsViewer,
  opsSessionEvents,
  opsSessionStream,
} from './events.ts';

export type OpsSessionCommand =
  | {
      type: 'StartOpsSession';
      sessionId: string;
      viewer: OpsViewer;
      at: Date;
      expiresAt: Date;
    }
  | { type: 'EndOpsSession'; reason: (typeof OPS_SESSION_END_REASONS)[number]; at: Date };

export type OpsSessionState =
  | { exists: false }
  | {
      exists: true;
      sessionId: string;
      viewer: OpsViewer;
      expiresAt: string;
      endedAt: string | undefined;
    };

export const opsSessionDecider: Decider<OpsSessionCommand, OpsSessionEvent, OpsSessionState> = {
  initialState: { exists: false },
  decide(command, state) {
    switch (command.type) {
      case 'StartOpsSession': {
        if (state.exists)
          throw new DomainError('conflict', 'the session exists', 'ops_session_exists');
        const { sessionId, viewer, at, expiresAt } = command;
        return [
          {
            type: 'OpsSessionStarted',
            data: {
              sessionId,
              viewer,
              startedAt: at.toISOString(),
              expiresAt: expiresAt.toISOString(),
            },
          },
        ];
      }
      case 'EndOpsSession':
        if (!state.exists)
          throw new DomainError('not_found', 'no such session', 'ops_session_not_found');
        // ending an ended session again changes nothing (a second logout, a double click)
        if (state.endedAt !== undefined) return [];
        return [
          {
            type: 'OpsSessionEnded',
            data: { reason: command.reason, endedAt: command.at.toISOString() },
          },
        ];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'OpsSessionStarted':
        return {
          exists: true,
          sessionId: event.data.sessionId,
          viewer: event.data.viewer,
          expiresAt: event.data.expiresAt,
          endedAt: undefined,
        };
      case 'OpsSessionEnded':
        return state.exists ? { ...state, endedAt: event.data.endedAt } : state;
    }
  },
};

export const opsSessionAggregate: Aggregate<
  OpsSessionCommand,
  OpsSessionEvent,
  OpsSessionState,
  Parameters<typeof opsSessionStream>
> = {
  events: opsSessionEvents,
  decider: opsSessionDecider,
  stream: opsSessionStream,
};
