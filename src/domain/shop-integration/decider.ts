import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import type { Encrypted } from '../shared/encrypted.ts';
import type { StoredKey } from '../shared/keys.ts';
import {
  DEFAULT_DELIVERY,
  type Permission,
  type ShopIntegrationEvent,
  shopIntegrationEvents,
  shopIntegrationStream,
  type WebhookDeliverySettings,
  type WebhookEventType,
} from './events.ts';

export interface ShopIntegrationFields {
  name: string;
  shopSystem: string;
  shopUrl: string;
  notificationUrl?: string | undefined;
}

export type ShopIntegrationCommand =
  | {
      type: 'CreateShopIntegration';
      integrationId: string;
      labelId: string;
      fields: ShopIntegrationFields;
      apiKey: StoredKey;
      at: Date;
    }
  | {
      type: 'UpdateShopIntegration';
      labelId: string;
      changes: Partial<Omit<ShopIntegrationFields, 'notificationUrl'>> & {
        notificationUrl?: string | null;
      };
      at: Date;
    }
  | { type: 'RotateShopIntegrationKey'; labelId: string; apiKey: StoredKey; at: Date }
  | { type: 'ChangeShopIntegrationPermissions'; permissions: Permission[]; at: Date }
  | {
      type: 'SetWebhookEndpoint';
      labelId: string;
      url: string;
      events: WebhookEventType[] | undefined;
      delivery?: WebhookDeliverySettings | undefined;
      signing: SigningSecret;
      at: Date;
    }
  | { type: 'RotateWebhookSecret'; labelId: string; signing: SigningSecret; at: Date }
  | {
      type: 'DisableWebhookEndpoint';
      /** undefined: the service itself (410, five days failing), any label */
      labelId: string | undefined;
      reason: 'requested' | 'gone' | 'failing';
      detail: string;
      at: Date;
    }
  | { type: 'EnableWebhookEndpoint'; labelId: string; at: Date };

export interface SigningSecret {
  secretId: string;
  secret: Encrypted;
}

/** How long a rotated-out secret keeps signing beside the new one. */
export const PREVIOUS_SECRET_HOURS = 24;

export interface WebhookEndpoint {
  url: string;
  events: WebhookEventType[] | undefined;
  delivery: WebhookDeliverySettings;
  /** the current secret first; a rotated-out one while it still signs */
  secrets: { signing: SigningSecret; until?: string }[];
  enabled: boolean;
  disabled?: { reason: string; detail: string; at: string } | undefined;
}

export type ShopIntegrationState =
  | { exists: false }
  | {
      exists: true;
      integrationId: string;
      labelId: string;
      fields: ShopIntegrationFields;
      apiKey: StoredKey;
      permissions: Permission[];
      webhook?: WebhookEndpoint | undefined;
    };

const notFound = () =>
  new DomainError('not_found', 'shop integration not found', 'shop_integration_not_found');

const noWebhook = () =>
  new DomainError(
    'conflict',
    'this shop integration has no webhook: set one first (PUT .../webhook)',
    'webhook_not_set',
  );

/** A label only ever sees its own integrations: another label's is "not found". */
function existingFor(state: ShopIntegrationState, labelId: string | undefined) {
  if (!state.exists || (labelId !== undefined && state.labelId !== labelId)) throw notFound();
  return state;
}

export const shopIntegrationDecider: Decider<
  ShopIntegrationCommand,
  ShopIntegrationEvent,
  ShopIntegrationState
> = {
  initialState: { exists: false },
  decide(command, state) {
    switch (command.type) {
      case 'CreateShopIntegration': {
        if (state.exists) {
          throw new DomainError('conflict', 'shop integration exists', 'shop_integration_exists');
        }
        const { integrationId, labelId, fields, apiKey, at } = command;
        return [
          {
            type: 'ShopIntegrationCreated',
            data: {
              ...withoutUndefined(fields),
              integrationId,
              labelId,
              apiKey,
              createdAt: at.toISOString(),
            },
          },
        ];
      }
      case 'UpdateShopIntegration': {
        const s = existingFor(state, command.labelId);
        const changes: Record<string, string | null> = {};
        for (const [k, v] of Object.entries(command.changes)) {
          if (v === undefined) continue;
          const current = s.fields[k as keyof ShopIntegrationFields] ?? null;
          if (current !== v) changes[k] = v;
        }
        if (Object.keys(changes).length === 0) return [];
        return [
          {
            type: 'ShopIntegrationUpdated',
            data: { integrationId: s.integrationId, changes, updatedAt: command.at.toISOString() },
          },
        ];
      }
      case 'RotateShopIntegrationKey': {
        const s = existingFor(state, command.labelId);
        return [
          {
            type: 'ShopIntegrationApiKeyRotated',
            data: {
              integrationId: s.integrationId,
              apiKey: command.apiKey,
              rotatedAt: command.at.toISOString(),
            },
          },
        ];
      }
      case 'ChangeShopIntegrationPermissions': {
        const s = existingFor(state, undefined);
        const permissions = [...new Set(command.permissions)].sort();
        if (permissions.join() === s.permissions.join()) return [];
        return [
          {
            type: 'ShopIntegrationPermissionsChanged',
            data: {
              integrationId: s.integrationId,
              permissions,
              changedAt: command.at.toISOString(),
            },
          },
        ];
      }
      case 'SetWebhookEndpoint': {
        const s = existingFor(state, command.labelId);
        return [
          {
            type: 'WebhookEndpointSet',
            data: {
              integrationId: s.integrationId,
              url: command.url,
              ...(command.events ? { events: [...new Set(command.events)].sort() } : {}),
              signing: command.signing,
              setAt: command.at.toISOString(),
              ...(command.delivery ? { delivery: command.delivery } : {}),
            },
          },
        ];
      }
      case 'RotateWebhookSecret': {
        const s = existingFor(state, command.labelId);
        if (!s.webhook) throw noWebhook();
        return [
          {
            type: 'WebhookSecretRotated',
            data: {
              integrationId: s.integrationId,
              signing: command.signing,
              previousUntil: new Date(
                command.at.getTime() + PREVIOUS_SECRET_HOURS * 3_600_000,
              ).toISOString(),
              rotatedAt: command.at.toISOString(),
            },
          },
        ];
      }
      case 'DisableWebhookEndpoint': {
        const s = existingFor(state, command.labelId);
        if (!s.webhook) throw noWebhook();
        if (!s.webhook.enabled) return [];
        return [
          {
            type: 'WebhookEndpointDisabled',
            data: {
              integrationId: s.integrationId,
              reason: command.reason,
              detail: command.detail,
              disabledAt: command.at.toISOString(),
            },
          },
        ];
      }
      case 'EnableWebhookEndpoint': {
        const s = existingFor(state, command.labelId);
        if (!s.webhook) throw noWebhook();
        if (s.webhook.enabled) return [];
        return [
          {
            type: 'WebhookEndpointEnabled',
            data: { integrationId: s.integrationId, enabledAt: command.at.toISOString() },
          },
        ];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ShopIntegrationCreated': {
        const { integrationId, labelId, apiKey, name, shopSystem, shopUrl, notificationUrl } =
          event.data;
        return {
          exists: true,
          integrationId,
          labelId,
          apiKey,
          fields: { name, shopSystem, shopUrl, notificationUrl },
          permissions: [],
        };
      }
      case 'ShopIntegrationUpdated': {
        if (!state.exists) return state;
        const { notificationUrl, ...rest } = event.data.changes;
        const fields = { ...state.fields, ...withoutUndefined(rest) };
        if (notificationUrl !== undefined) fields.notificationUrl = notificationUrl ?? undefined;
        return { ...state, fields };
      }
      case 'ShopIntegrationApiKeyRotated':
        return state.exists ? { ...state, apiKey: event.data.apiKey } : state;
      case 'ShopIntegrationPermissionsChanged':
        return state.exists ? { ...state, permissions: event.data.permissions } : state;
      case 'WebhookEndpointSet':
        return state.exists
          ? {
              ...state,
              webhook: {
                url: event.data.url,
                events: event.data.events,
                delivery: event.data.delivery ?? DEFAULT_DELIVERY,
                secrets: [{ signing: event.data.signing }],
                enabled: true,
              },
            }
          : state;
      case 'WebhookSecretRotated': {
        if (!state.exists || !state.webhook) return state;
        const [current] = state.webhook.secrets;
        return {
          ...state,
          webhook: {
            ...state.webhook,
            secrets: [
              { signing: event.data.signing },
              ...(current ? [{ signing: current.signing, until: event.data.previousUntil }] : []),
            ],
          },
        };
      }
      case 'WebhookEndpointDisabled':
        return state.exists && state.webhook
          ? {
              ...state,
              webhook: {
                ...state.webhook,
                enabled: false,
                disabled: {
                  reason: event.data.reason,
                  detail: event.data.detail,
                  at: event.data.disabledAt,
                },
              },
            }
          : state;
      case 'WebhookEndpointEnabled':
        return state.exists && state.webhook
          ? { ...state, webhook: { ...state.webhook, enabled: true, disabled: undefined } }
          : state;
    }
  },
};

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export const shopIntegrationAggregate: Aggregate<
  ShopIntegrationCommand,
  ShopIntegrationEvent,
  ShopIntegrationState,
  Parameters<typeof shopIntegrationStream>
> = {
  events: shopIntegrationEvents,
  decider: shopIntegrationDecider,
  stream: shopIntegrationStream,
};
