import { z } from 'zod';
import type { ShopIntegrationRow } from '#projections/shop-integrations';
import { PERMISSIONS } from '../../domain/shop-integration/events.ts';
import { httpUrl, instant } from './common.ts';

export const permissionSchema = z
  .enum(PERMISSIONS)
  .meta({ id: 'Permission', description: 'offering: may read the product configurations' });

const name = z.string().trim().min(1).max(200);
const shopSystem = z.string().trim().min(1).max(100);

export const createShopIntegrationBody = z
  .object({ name, shopSystem, shopUrl: httpUrl, notificationUrl: httpUrl.optional() })
  .strict()
  .meta({
    id: 'NewShopIntegration',
    example: { name: 'Main shop', shopSystem: 'shopware', shopUrl: 'https://shop.example.com' },
  });

export const updateShopIntegrationBody = z
  .object({
    name: name.optional(),
    shopSystem: shopSystem.optional(),
    shopUrl: httpUrl.optional(),
    notificationUrl: httpUrl.nullable().optional().describe('null removes it'),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'send at least one field',
  })
  .meta({ id: 'ShopIntegrationChange', minProperties: 1, example: { name: 'Renamed shop' } });

const integrationExample = {
  id: '0f8fad5b-d9cb-469f-a165-70867728950e',
  name: 'Main shop',
  shopSystem: 'shopware',
  shopUrl: 'https://shop.example.com',
  permissions: ['offering'],
  apiKeyPrefix: 'ep_int_0f8fad5b',
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
};

export const shopIntegrationSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    shopSystem: z.string(),
    shopUrl: z.string(),
    notificationUrl: z.string().optional(),
    permissions: z.array(permissionSchema),
    apiKeyPrefix: z.string(),
    createdAt: instant,
    updatedAt: instant,
  })
  .meta({ id: 'ShopIntegration', example: integrationExample });

export const shopIntegrationWithKeySchema = shopIntegrationSchema
  .extend({ apiKey: z.string().describe('shown only in this answer') })
  .meta({ id: 'ShopIntegrationCreated', example: { ...integrationExample, apiKey: 'ep_int_...' } });

export const rotatedKeySchema = z
  .object({ id: z.uuid(), apiKey: z.string().describe('shown only in this answer') })
  .meta({ id: 'RotatedKey' });

/** A row of the shop integrations read model, as clients see it. */
export const toShopIntegration = (
  r: ShopIntegrationRow,
): z.infer<typeof shopIntegrationSchema> => ({
  id: r.integration_id,
  name: r.name,
  shopSystem: r.shop_system,
  shopUrl: r.shop_url,
  ...(r.notification_url !== null ? { notificationUrl: r.notification_url } : {}),
  permissions: r.permissions,
  apiKeyPrefix: r.api_key_prefix,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});
