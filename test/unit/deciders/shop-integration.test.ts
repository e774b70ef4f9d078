import { describe, it } from 'vitest';
import { shopIntegrationDecider } from '../../../src/domain/shop-integration/decider.ts';
import type { ShopIntegrationEvent } from '../../../src/domain/shop-integration/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const given = specFor(shopIntegrationDecider);
const id = '11111111-1111-4111-8111-111111111111';
const label = '22222222-2222-4222-8222-222222222222';
const otherLabel = '33333333-3333-4333-8333-333333333333';
const key = { prefix: 'ep_int_11111111', sha256: 'a'.repeat(64) };
const key2 = { prefix: 'ep_int_11111111', sha256: 'b'.repeat(64) };
const at = new Date('2026-01-02T03:04:05.000Z');
const iso = at.toISOString();
const fields = { name: 'Shop', shopSystem: 'shopware', shopUrl: 'https://shop.example' };

const created: ShopIntegrationEvent = {
  type: 'ShopIntegrationCreated',
  data: { ...fields, integrationId: id, labelId: label, apiKey: key, createdAt: iso },
};

describe('shop integration decider', () => {
  it('creates an integration', () => {
    given([])
      .when({
        type: 'CreateShopIntegration',
        integrationId: id,
        labelId: label,
        fields,
        apiKey: key,
        at,
      })
      .thenEvents([created]);
  });

  it('refuses to create the same integration twice', () => {
    given([created])
      .when({
        type: 'CreateShopIntegration',
        integrationId: id,
        labelId: label,
        fields,
        apiKey: key,
        at,
      })
      .thenFails('shop_integration_exists');
  });

  it('records only the fields that change', () => {
    given([created])
      .when({
        type: 'UpdateShopIntegration',
        labelId: label,
        changes: { name: 'Shop', shopUrl: 'https://new.example' },
        at,
      })
      .thenEvents([
        {
          type: 'ShopIntegrationUpdated',
          data: { integrationId: id, changes: { shopUrl: 'https://new.example' }, updatedAt: iso },
        },
      ]);
  });

  it('decides nothing when an update changes nothing', () => {
    given([created])
      .when({ type: 'UpdateShopIntegration', labelId: label, changes: { name: 'Shop' }, at })
      .thenEvents([]);
  });

  it('removes the notification URL with null', () => {
    const withUrl: ShopIntegrationEvent = {
      type: 'ShopIntegrationUpdated',
      data: {
        integrationId: id,
        changes: { notificationUrl: 'https://hook.example' },
        updatedAt: iso,
      },
    };
    given([created, withUrl])
      .when({
        type: 'UpdateShopIntegration',
        labelId: label,
        changes: { notificationUrl: null },
        at,
      })
      .thenEvents([
        {
          type: 'ShopIntegrationUpdated',
          data: { integrationId: id, changes: { notificationUrl: null }, updatedAt: iso },
        },
      ]);
  });

  it("treats another label's integration as not found", () => {
    given([created])
      .when({ type: 'UpdateShopIntegration', labelId: otherLabel, changes: { name: 'x' }, at })
      .thenFails('shop_integration_not_found');
    given([created])
      .when({ type: 'RotateShopIntegrationKey', labelId: otherLabel, apiKey: key2, at })
      .thenFails('shop_integration_not_found');
  });

  it('cannot update or rotate an integration that does not exist', () => {
    given([])
      .when({ type: 'UpdateShopIntegration', labelId: label, changes: { name: 'x' }, at })
      .thenFails('shop_integration_not_found');
    given([])
      .when({ type: 'RotateShopIntegrationKey', labelId: label, apiKey: key2, at })
      .thenFails('shop_integration_not_found');
  });

  it('rotates the key', () => {
    given([created])
      .when({ type: 'RotateShopIntegrationKey', labelId: label, apiKey: key2, at })
      .thenEvents([
        {
          type: 'ShopIntegrationApiKeyRotated',
          data: { integrationId: id, apiKey: key2, rotatedAt: iso },
        },
      ]);
  });

  it('grants permissions once, sorted and without repeats', () => {
    given([created])
      .when({ type: 'ChangeShopIntegrationPermissions', permissions: ['offering', 'offering'], at })
      .thenEvents([
        {
          type: 'ShopIntegrationPermissionsChanged',
          data: { integrationId: id, permissions: ['offering'], changedAt: iso },
        },
      ]);
    const granted: ShopIntegrationEvent = {
      type: 'ShopIntegrationPermissionsChanged',
      data: { integrationId: id, permissions: ['offering'], changedAt: iso },
    };
    given([created, granted])
      .when({ type: 'ChangeShopIntegrationPermissions', permissions: ['offering'], at })
      .thenEvents([]);
  });
});
