import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import type { Encrypted } from '../shared/encrypted.ts';
import type { StoredKey } from '../shared/keys.ts';
import {
  type ApprovalPolicy,
  type Batching,
  type Branding,
  DEFAULT_BRANDING,
  DEFAULT_PRINT_SETTINGS,
  DEFAULT_RENDER_WITHIN_MINUTES,
  DEFAULT_SHARE_FACTOR,
  DEFAULT_SHIP_WITHIN_HOURS,
  type Environment,
  type LabelEvent,
  labelEvents,
  labelStream,
  NO_APPROVAL,
  type PartnerIdEvent,
  type PrintSettings,
  partnerIdEvents,
  partnerIdStream,
} from './events.ts';

type CallbackTarget = { url: string; apiKey: Encrypted };

export type LabelCommand =
  | {
      type: 'CreateLabel';
      labelId: string;
      name: string;
      partnerId: number;
      adminKey: StoredKey;
      fulfillmentKey: StoredKey;
      at: Date;
    }
  | {
      type: 'ConfigureCallbacks';
      staging: CallbackTarget | undefined;
      production: CallbackTarget;
      environment: Environment;
      at: Date;
    }
  | { type: 'SetRenderDeadline'; renderWithinMinutes: number; at: Date }
  | { type: 'SetShipDeadline'; shipWithinHours: number; at: Date }
  | { type: 'SetShare'; factor: number; at: Date }
  | {
      type: 'SetBranding';
      /** fields left out stay as they are */
      branding: Partial<Branding>;
      at: Date;
    }
  | { type: 'SetBatching'; batching: Batching; at: Date }
  | { type: 'SetApprovalPolicy'; policy: ApprovalPolicy; at: Date }
  | {
      type: 'SetPrintSettings';
      /** fields left out stay as they are */
      settings: Partial<PrintSettings>;
      at: Date;
    };

export type LabelState =
  | { exists: false }
  | {
      exists: true;
      labelId: string;
      name: string;
      partnerId: number;
      adminKey: StoredKey;
      fulfillmentKey: StoredKey;
      /** how long its orders may take to render before they are overdue */
      renderWithinMinutes: number;
      /** how long its orders may take from receipt to shipment before they are late */
      shipWithinHours: number;
      /** its factor on the deployment's share per cost class */
      shareFactor: number;
      print: PrintSettings;
      branding: Branding;
      batching: Batching;
      approval: ApprovalPolicy;
      callbacks:
        | {
            staging: CallbackTarget | undefined;
            production: CallbackTarget;
            environment: Environment;
          }
        | undefined;
    };

export const labelDecider: Decider<LabelCommand, LabelEvent, LabelState> = {
  initialState: { exists: false },
  decide(command, state) {
    switch (command.type) {
      case 'CreateLabel': {
        if (state.exists) throw new DomainError('conflict', 'label exists', 'label_exists');
        const { labelId, name, partnerId, adminKey, fulfillmentKey, at } = command;
        return [
          {
            type: 'LabelCreated',
            data: {
              labelId,
              name,
              partnerId,
              adminKey,
              fulfillmentKey,
              createdAt: at.toISOString(),
            },
          },
        ];
      }
      case 'SetRenderDeadline': {
        if (!state.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
        if (state.renderWithinMinutes === command.renderWithinMinutes) return [];
        return [
          {
            type: 'LabelRenderDeadlineSet',
            data: {
              labelId: state.labelId,
              renderWithinMinutes: command.renderWithinMinutes,
              setAt: command.at.toISOString(),
            },
          },
        ];
      }
      case 'SetShipDeadline': {
        if (!state.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
        if (state.shipWithinHours === command.shipWithinHours) return [];
        return [
          {
            type: 'LabelShipDeadlineSet',
            data: {
              labelId: state.labelId,
              shipWithinHours: command.shipWithinHours,
              setAt: command.at.toISOString(),
            },
          },
        ];
      }
      case 'SetShare': {
        if (!state.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
        if (state.shareFactor === command.factor) return [];
        return [
          {
            type: 'LabelShareSet',
            data: {
              labelId: state.labelId,
              factor: command.factor,
              setAt: command.at.toISOString(),
            },
          },
        ];
      }
      case 'SetBranding': {
        if (!state.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
        const given = Object.entries(command.branding).filter(([, v]) => v !== undefined);
        const next: Branding = { ...state.branding, ...Object.fromEntries(given) };
        if (JSON.stringify(next) === JSON.stringify(state.branding)) return [];
        return [
          {
            type: 'LabelBrandingSet',
            data: { labelId: state.labelId, ...next, setAt: command.at.toISOString() },
          },
        ];
      }
      case 'SetPrintSettings': {
        if (!state.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
        const given = Object.entries(command.settings).filter(([, v]) => v !== undefined);
        const next: PrintSettings = { ...state.print, ...Object.fromEntries(given) };
        if (JSON.stringify(next) === JSON.stringify(state.print)) return [];
        return [
          {
            type: 'LabelPrintSettingsSet',
            data: { labelId: state.labelId, ...next, setAt: command.at.toISOString() },
          },
        ];
      }
      case 'SetBatching': {
        if (!state.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
        if (JSON.stringify(command.batching) === JSON.stringify(state.batching)) return [];
        return [
          {
            type: 'LabelBatchingSet',
            data: { labelId: state.labelId, ...command.batching, setAt: command.at.toISOString() },
          },
        ];
      }
      case 'SetApprovalPolicy': {
        if (!state.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
        if (JSON.stringify(command.policy) === JSON.stringify(state.approval)) return [];
        return [
          {
            type: 'LabelApprovalPolicySet',
            data: { labelId: state.labelId, ...command.policy, setAt: command.at.toISOString() },
          },
        ];
      }
      case 'ConfigureCallbacks': {
        if (!state.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
        if (command.environment === 'staging' && !command.staging) {
          throw new DomainError(
            'invalid',
            'the staging environment needs a staging callback',
            'staging_missing',
          );
        }
        const { staging, production, environment, at } = command;
        return [
          {
            type: 'LabelCallbacksConfigured',
            data: {
              labelId: state.labelId,
              ...(staging ? { staging } : {}),
              production,
              environment,
              configuredAt: at.toISOString(),
            },
          },
        ];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'LabelCreated': {
        const { labelId, name, partnerId, adminKey, fulfillmentKey } = event.data;
        return {
          exists: true,
          labelId,
          name,
          partnerId,
          adminKey,
          fulfillmentKey,
          renderWithinMinutes: DEFAULT_RENDER_WITHIN_MINUTES,
          shipWithinHours: DEFAULT_SHIP_WITHIN_HOURS,
          shareFactor: DEFAULT_SHARE_FACTOR,
          print: DEFAULT_PRINT_SETTINGS,
          branding: DEFAULT_BRANDING,
          batching: { rules: [], hotFolder: null },
          approval: NO_APPROVAL,
          callbacks: undefined,
        };
      }
      case 'LabelRenderDeadlineSet':
        return state.exists
          ? { ...state, renderWithinMinutes: event.data.renderWithinMinutes }
          : state;
      case 'LabelShipDeadlineSet':
        return state.exists ? { ...state, shipWithinHours: event.data.shipWithinHours } : state;
      case 'LabelShareSet':
        return state.exists ? { ...state, shareFactor: event.data.factor } : state;
      case 'LabelApprovalPolicySet': {
        if (!state.exists) return state;
        const { labelId: _l, setAt: _s, ...policy } = event.data;
        return { ...state, approval: policy };
      }
      case 'LabelBrandingSet': {
        if (!state.exists) return state;
        const { logo, returnAddress, message, slipSize } = event.data;
        return { ...state, branding: { logo, returnAddress, message, slipSize } };
      }
      case 'LabelPrintSettingsSet': {
        if (!state.exists) return state;
        const { outputProfile, cropMarks, maxInkCoverage } = event.data;
        return { ...state, print: { outputProfile, cropMarks, maxInkCoverage } };
      }
      case 'LabelBatchingSet':
        return state.exists
          ? { ...state, batching: { rules: event.data.rules, hotFolder: event.data.hotFolder } }
          : state;
      case 'LabelCallbacksConfigured': {
        if (!state.exists) return state;
        const { staging, production, environment } = event.data;
        return { ...state, callbacks: { staging, production, environment } };
      }
    }
  },
};

export type PartnerIdCommand = { type: 'ReservePartnerId'; partnerId: number; labelId: string };
export type PartnerIdState = { reservedBy: string | undefined };

export const partnerIdDecider: Decider<PartnerIdCommand, PartnerIdEvent, PartnerIdState> = {
  initialState: { reservedBy: undefined },
  decide(command, state) {
    if (state.reservedBy !== undefined) {
      throw new DomainError(
        'conflict',
        `partner id ${command.partnerId} is taken`,
        'partner_id_taken',
      );
    }
    return [
      {
        type: 'PartnerIdReserved',
        data: { partnerId: command.partnerId, labelId: command.labelId },
      },
    ];
  },
  evolve(_state, event) {
    return { reservedBy: event.data.labelId };
  },
};

export const labelAggregate: Aggregate<
  LabelCommand,
  LabelEvent,
  LabelState,
  Parameters<typeof labelStream>
> = {
  events: labelEvents,
  decider: labelDecider,
  stream: labelStream,
};

export const partnerIdAggregate: Aggregate<
  PartnerIdCommand,
  PartnerIdEvent,
  PartnerIdState,
  Parameters<typeof partnerIdStream>
> = {
  events: partnerIdEvents,
  decider: partnerIdDecider,
  stream: partnerIdStream,
};
