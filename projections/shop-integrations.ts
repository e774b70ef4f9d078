import { shopIntegrationEvents } from '../src/domain/shop-integration/events.ts';
import type { Projection } from './projection.ts';

export const shopIntegrationsProjection: Projection = {
  name: 'shop-integrations',
  tables: ['rm_shop_integrations'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_shop_integrations (
      integration_id   uuid PRIMARY KEY,
      label_id         uuid NOT NULL,
      name             text NOT NULL,
      shop_system      text NOT NULL,
      shop_url         text NOT NULL,
      notification_url text,
      permissions      text[] NOT NULL DEFAULT '{}',
      api_key_prefix   text NOT NULL,
      created_at       timestamptz NOT NULL,
      updated_at       timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS rm_shop_integrations_label
      ON rm_shop_integrations (label_id, created_at, integration_id);`,
  handles: new Set(shopIntegrationEvents.types),
  async apply(tx, stored) {
    const event = shopIntegrationEvents.deserialize(stored);
    switch (event.type) {
      case 'ShopIntegrationCreated': {
        const d = event.data;
        await tx.query(
          `INSERT INTO rm_shop_integrations (integration_id, label_id, name, shop_system, shop_url,
             notification_url, api_key_prefix, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ON CONFLICT (integration_id) DO NOTHING`,
          [
            d.integrationId,
            d.labelId,
            d.name,
            d.shopSystem,
            d.shopUrl,
            d.notificationUrl ?? null,
            d.apiKey.prefix,
            d.createdAt,
          ],
        );
        return;
      }
      case 'ShopIntegrationUpdated': {
        const c = event.data.changes;
        await tx.query(
          `UPDATE rm_shop_integrations SET
             name = COALESCE($2, name), shop_system = COALESCE($3, shop_system),
             shop_url = COALESCE($4, shop_url),
             notification_url = CASE WHEN $5 THEN $6 ELSE notification_url END,
             updated_at = $7
           WHERE integration_id = $1`,
          [
            event.data.integrationId,
            c.name ?? null,
            c.shopSystem ?? null,
            c.shopUrl ?? null,
            c.notificationUrl !== undefined,
            c.notificationUrl ?? null,
            event.data.updatedAt,
          ],
        );
        return;
      }
      case 'ShopIntegrationApiKeyRotated':
        await tx.query(
          'UPDATE rm_shop_integrations SET api_key_prefix = $2, updated_at = $3 WHERE integration_id = $1',
          [event.data.integrationId, event.data.apiKey.prefix, event.data.rotatedAt],
        );
        return;
      case 'ShopIntegrationPermissionsChanged':
        await tx.query(
          'UPDATE rm_shop_integrations SET permissions = $2, updated_at = $3 WHERE integration_id = $1',
          [event.data.integrationId, event.data.permissions, event.data.changedAt],
        );
        return;
    }
  },
};
