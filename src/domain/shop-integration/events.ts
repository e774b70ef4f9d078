import { z } from 'zod';
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

export type ShopIntegrationEvent =
  | EventOf<typeof ShopIntegrationCreated>
  | EventOf<typeof ShopIntegrationUpdated>
  | EventOf<typeof ShopIntegrationApiKeyRotated>
  | EventOf<typeof ShopIntegrationPermissionsChanged>;

export const shopIntegrationEvents = new EventRegistry<ShopIntegrationEvent>([
  ShopIntegrationCreated,
  ShopIntegrationUpdated,
  ShopIntegrationApiKeyRotated,
  ShopIntegrationPermissionsChanged,
]);

export const shopIntegrationStream = (id: string) => `ShopIntegration-${id}`;
