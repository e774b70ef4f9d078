import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import type { StoredKey } from '../shared/keys.ts';
import {
  type FacilityEvent,
  type FacilitySettings,
  facilityEvents,
  facilityStream,
} from './events.ts';

export type FacilityCommand =
  | {
      type: 'RegisterFacility';
      facilityId: string;
      labelId: string;
      settings: FacilitySettings;
      apiKey: StoredKey;
      at: Date;
    }
  | { type: 'UpdateFacility'; labelId: string; settings: FacilitySettings; at: Date }
  | { type: 'PauseFacility'; labelId: string; reason?: string | undefined; at: Date }
  | { type: 'ResumeFacility'; labelId: string; at: Date };

export type FacilityState =
  | { exists: false }
  | {
      exists: true;
      facilityId: string;
      labelId: string;
      settings: FacilitySettings;
      apiKey: StoredKey;
      paused: boolean;
    };

const notFound = () => new DomainError('not_found', 'facility not found', 'facility_not_found');

/** The facility of this label: another label's is not found. */
function ofLabel(state: FacilityState, labelId: string) {
  if (!state.exists || state.labelId !== labelId) throw notFound();
  return state;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const facilityDecider: Decider<FacilityCommand, FacilityEvent, FacilityState> = {
  initialState: { exists: false },
  decide(command, state) {
    const at = command.at.toISOString();
    switch (command.type) {
      case 'RegisterFacility':
        if (state.exists)
          throw new DomainError('conflict', 'the facility exists', 'facility_exists');
        return [
          {
            type: 'FacilityRegistered',
            data: {
              facilityId: command.facilityId,
              labelId: command.labelId,
              settings: command.settings,
              apiKey: command.apiKey,
              registeredAt: at,
            },
          },
        ];
      case 'UpdateFacility': {
        const s = ofLabel(state, command.labelId);
        if (same(s.settings, command.settings)) return [];
        return [{ type: 'FacilityUpdated', data: { settings: command.settings, updatedAt: at } }];
      }
      case 'PauseFacility':
        if (ofLabel(state, command.labelId).paused) return [];
        return [
          {
            type: 'FacilityPaused',
            data: { ...(command.reason ? { reason: command.reason } : {}), pausedAt: at },
          },
        ];
      case 'ResumeFacility':
        if (!ofLabel(state, command.labelId).paused) return [];
        return [{ type: 'FacilityResumed', data: { resumedAt: at } }];
    }
  },
  evolve(state, event) {
    if (event.type === 'FacilityRegistered') {
      const d = event.data;
      return {
        exists: true,
        facilityId: d.facilityId,
        labelId: d.labelId,
        settings: d.settings,
        apiKey: d.apiKey,
        paused: false,
      };
    }
    if (!state.exists) return state;
    switch (event.type) {
      case 'FacilityUpdated':
        return { ...state, settings: event.data.settings };
      case 'FacilityPaused':
        return { ...state, paused: true };
      case 'FacilityResumed':
        return { ...state, paused: false };
    }
  },
};

export const facilityAggregate: Aggregate<
  FacilityCommand,
  FacilityEvent,
  FacilityState,
  Parameters<typeof facilityStream>
> = {
  events: facilityEvents,
  decider: facilityDecider,
  stream: facilityStream,
};
