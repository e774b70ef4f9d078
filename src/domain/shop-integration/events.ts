import { z } from 'zod';
import { encryptedSchema } from '../shared/encrypted.ts';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';
import { storedKeySchema } from '../shared/keys.ts';

export const PERMISSIONS = ['offering'] as const;
export const permissionSchema = z.enum(PERMISSIONS);
export type Permission = z.infer<typeof permissionSchema>;

export const shopIntegrationFields = z.object({
  name: z.string(),
  shopSystem: z.string(),
  shopUrl: z.string(),
  notificationUrl: z.string().optional(),
});

export const ShopIntegrationCreated = defineEvent(
  'ShopIntegrationCreated',
  1,
  shopIntegrationFields.extend({
    integrationId: z.uuid(),
    labelId: z.uuid(),
    apiKey: storedKeySchema,
    createdAt: z.iso.datetime(),
  }),
);

export const ShopIntegrationUpdated = defineEvent(
  'ShopIntegrationUpdated',
  1,
  z.object({
    integrationId: z.uuid(),
    /** only the fields that changed; notificationUrl null = removed */
    changes: shopIntegrationFields
      .partial()
      .extend({ notificationUrl: z.string().nullable().optional() }),
    updatedAt: z.iso.datetime(),
  }),
);

export const ShopIntegrationApiKeyRotated = defineEvent(
  'ShopIntegrationApiKeyRotated',
  1,
  z.object({ integrationId: z.uuid(), apiKey: storedKeySchema, rotatedAt: z.iso.datetime() }),
);

export const ShopIntegrationPermissionsChanged = defineEvent(
  'ShopIntegrationPermissionsChanged',
  1,
  z.object({
    integrationId: z.uuid(),
    permissions: z.array(permissionSchema),
    changedAt: z.iso.datetime(),
  }),
);

/** The webhook event types a shop can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'order.received',
  'order.item.print_ready',
  'order.item.failed',
  'order.ready',
  'order.failed',
  'order.overdue',
  'order.cancelled',
  'order.barcode_regenerated',
  'order.replayed',
  'order.item.printed',
  'order.item.packed',
  'order.shipped',
  'order.delivered',
  'order.returned',
  'order.on_hold',
  'order.released',
  'order.item.reprinted',
  'order.late',
  'order.item.mockup_ready',
  'order.proof.ready',
  'order.proof.approved',
  'order.proof.rejected',
  'order.approved',
  'order.proof.reminder',
  'order.proof.expired',
  'order.item.routed',
  // not of an order: the label's daily signed tree head of the audit log
  'audit.tree_head',
] as const;
export const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;

/**
 * How messages go to an endpoint: `ordered` one at a time in log order (a failing one
 * holds back those after it); otherwise up to `maxInFlight` at once, at most
 * `ratePerSecond` a second when set.
 */
export const webhookDeliverySettingsSchema = z.object({
  ordered: z.boolean(),
  maxInFlight: z.number().int().min(1).max(256),
  ratePerSecond: z.number().positive().max(10_000).optional(),
});
export type WebhookDeliverySettings = z.infer<typeof webhookDeliverySettingsSchema>;
export const DEFAULT_DELIVERY: WebhookDeliverySettings = { ordered: false, maxInFlight: 16 };

/** A signing secret, encrypted with the integration's key; `secretId` names it in logs. */
const signingSecretSchema = z.object({ secretId: z.string(), secret: encryptedSchema });

export const WebhookEndpointSet = defineEvent(
  'WebhookEndpointSet',
  1,
  z.object({
    integrationId: z.uuid(),
    url: z.string(),
    /** the event types sent; every type when absent */
    events: z.array(webhookEventTypeSchema).optional(),
    signing: signingSecretSchema,
    setAt: z.iso.datetime(),
    /** how deliveries go to it; the defaults when absent */
    delivery: webhookDeliverySettingsSchema.optional(),
  }),
);

export const WebhookSecretRotated = defineEvent(
  'WebhookSecretRotated',
  1,
  z.object({
    integrationId: z.uuid(),
    signing: signingSecretSchema,
    /** the secret before keeps signing beside the new one until then */
    previousUntil: z.iso.datetime(),
    rotatedAt: z.iso.datetime(),
  }),
);

export const WebhookEndpointDisabled = defineEvent(
  'WebhookEndpointDisabled',
  1,
  z.object({
    integrationId: z.uuid(),
    /** `requested` (by the admin), `gone` (the endpoint answered 410), `failing` (5 days) */
    reason: z.enum(['requested', 'gone', 'failing']),
    detail: z.string(),
    disabledAt: z.iso.datetime(),
  }),
);

export const WebhookEndpointEnabled = defineEvent(
  'WebhookEndpointEnabled',
  1,
  z.object({ integrationId: z.uuid(), enabledAt: z.iso.datetime() }),
);

export type ShopIntegrationEvent =
  | EventOf<typeof ShopIntegrationCreated>
  | EventOf<typeof ShopIntegrationUpdated>
  | EventOf<typeof ShopIntegrationApiKeyRotated>
  | EventOf<typeof ShopIntegrationPermissionsChanged>
  | EventOf<typeof WebhookEndpointSet>
  | EventOf<typeof WebhookSecretRotated>
  | EventOf<typeof WebhookEndpointDisabled>
  | EventOf<typeof WebhookEndpointEnabled>;

export const shopIntegrationEvents = new EventRegistry<ShopIntegrationEvent>([
  ShopIntegrationCreated,
  ShopIntegrationUpdated,
  ShopIntegrationApiKeyRotated,
  ShopIntegrationPermissionsChanged,
  WebhookEndpointSet,
  WebhookSecretRotated,
  WebhookEndpointDisabled,
  WebhookEndpointEnabled,
]);

export const shopIntegrationStream = (id: string) => `ShopIntegration-${id}`;
