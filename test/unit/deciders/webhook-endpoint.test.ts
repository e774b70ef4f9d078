import { describe, it } from 'vitest';
import { shopIntegrationDecider } from '../../../src/domain/shop-integration/decider.ts';
import type { ShopIntegrationEvent } from '../../../src/domain/shop-integration/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const given = specFor(shopIntegrationDecider);
const id = '11111111-1111-4111-8111-111111111111';
const label = '22222222-2222-4222-8222-222222222222';
const otherLabel = '33333333-3333-4333-8333-333333333333';
const at = new Date('2026-01-02T03:04:05.000Z');
const iso = at.toISOString();
const sealed = (n: number) => ({
  secretId: `whs_${n}`,
  secret: { alg: 'A256GCM' as const, iv: `iv${n}`, tag: `tag${n}`, data: `data${n}` },
});

const created: ShopIntegrationEvent = {
  type: 'ShopIntegrationCreated',
  data: {
    name: 'Shop',
    shopSystem: 'shopware',
    shopUrl: 'https://shop.example',
    integrationId: id,
    labelId: label,
    apiKey: { prefix: 'ep_int_11111111', sha256: 'a'.repeat(64) },
    createdAt: iso,
  },
};
const set: ShopIntegrationEvent = {
  type: 'WebhookEndpointSet',
  data: {
    integrationId: id,
    url: 'https://shop.example/hooks',
    events: ['order.failed', 'order.ready'],
    signing: sealed(1),
    setAt: iso,
  },
};
const disabled: ShopIntegrationEvent = {
  type: 'WebhookEndpointDisabled',
  data: { integrationId: id, reason: 'gone', detail: '410', disabledAt: iso },
};

describe('webhook endpoint of a shop integration', () => {
  it('is set with its event types, sorted and once each', () => {
    given([created])
      .when({
        type: 'SetWebhookEndpoint',
        labelId: label,
        url: 'https://shop.example/hooks',
        events: ['order.ready', 'order.failed', 'order.ready'],
        signing: sealed(1),
        at,
      })
      .thenEvents([set]);
  });

  it("is not another label's to set", () => {
    given([created])
      .when({
        type: 'SetWebhookEndpoint',
        labelId: otherLabel,
        url: 'https://x.example/',
        events: undefined,
        signing: sealed(1),
        at,
      })
      .thenFails('shop_integration_not_found');
  });

  it('rotates its secret, the one before signing for 24 hours more', () => {
    given([created, set])
      .when({ type: 'RotateWebhookSecret', labelId: label, signing: sealed(2), at })
      .thenEvents([
        {
          type: 'WebhookSecretRotated',
          data: {
            integrationId: id,
            signing: sealed(2),
            previousUntil: '2026-01-03T03:04:05.000Z',
            rotatedAt: iso,
          },
        },
      ]);
  });

  it('cannot rotate, disable or enable what was never set', () => {
    given([created])
      .when({ type: 'RotateWebhookSecret', labelId: label, signing: sealed(2), at })
      .thenFails('webhook_not_set');
    given([created])
      .when({ type: 'EnableWebhookEndpoint', labelId: label, at })
      .thenFails('webhook_not_set');
  });

  it('is disabled once: a second 410 records nothing', () => {
    given([created, set])
      .when({
        type: 'DisableWebhookEndpoint',
        labelId: undefined,
        reason: 'gone',
        detail: '410',
        at,
      })
      .thenEvents([disabled]);
    given([created, set, disabled])
      .when({
        type: 'DisableWebhookEndpoint',
        labelId: undefined,
        reason: 'gone',
        detail: '410',
        at,
      })
      .thenEvents([]);
  });

  it('is enabled again only when disabled', () => {
    given([created, set, disabled])
      .when({ type: 'EnableWebhookEndpoint', labelId: label, at })
      .thenEvents([
        { type: 'WebhookEndpointEnabled', data: { integrationId: id, enabledAt: iso } },
      ]);
    given([created, set])
      .when({ type: 'EnableWebhookEndpoint', labelId: label, at })
      .thenEvents([]);
  });
});
