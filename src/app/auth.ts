import { labelDecider } from '../domain/label/decider.ts';
import { labelEvents, labelStream } from '../domain/label/events.ts';
import { printshopKeyDecider } from '../domain/printshop-key/decider.ts';
import { printshopKeyEvents, printshopKeyStream } from '../domain/printshop-key/events.ts';
import { keyMatches, parseKey, secretEquals } from '../domain/shared/keys.ts';
import { shopIntegrationDecider } from '../domain/shop-integration/decider.ts';
import {
  type Permission,
  shopIntegrationEvents,
  shopIntegrationStream,
} from '../domain/shop-integration/events.ts';
import type { EventStore } from '../eventstore/port.ts';
import { loadState } from './command-handler.ts';

export type Principal =
  | { kind: 'operator' }
  | { kind: 'admin'; labelId: string }
  | { kind: 'integration'; labelId: string; integrationId: string; permissions: Permission[] }
  | { kind: 'fulfillment'; labelId: string; partnerId: number }
  | { kind: 'printshop'; keyId: string };

export type PrincipalKind = Principal['kind'];

/**
 * Finds who a presented key belongs to, or undefined for an unknown key. The owning
 * aggregate is read from the event store itself, not from a read model, so a key is
 * valid from the moment it is issued and refused from the moment it is rotated.
 */
export async function resolveApiKey(
  store: EventStore,
  operatorKey: string,
  presented: string,
): Promise<Principal | undefined> {
  const parsed = parseKey(presented);
  if (!parsed) {
    return secretEquals(presented, operatorKey) ? { kind: 'operator' } : undefined;
  }
  switch (parsed.kind) {
    case 'adm':
    case 'ful': {
      const s = await loadState(store, labelEvents, labelDecider, labelStream(parsed.ownerId));
      if (!s.exists) return undefined;
      if (parsed.kind === 'adm') {
        return keyMatches(presented, s.adminKey)
          ? { kind: 'admin', labelId: s.labelId }
          : undefined;
      }
      return keyMatches(presented, s.fulfillmentKey)
        ? { kind: 'fulfillment', labelId: s.labelId, partnerId: s.partnerId }
        : undefined;
    }
    case 'int': {
      const s = await loadState(
        store,
        shopIntegrationEvents,
        shopIntegrationDecider,
        shopIntegrationStream(parsed.ownerId),
      );
      if (!s.exists || !keyMatches(presented, s.apiKey)) return undefined;
      return {
        kind: 'integration',
        labelId: s.labelId,
        integrationId: s.integrationId,
        permissions: s.permissions,
      };
    }
    case 'psk': {
      const s = await loadState(
        store,
        printshopKeyEvents,
        printshopKeyDecider,
        printshopKeyStream(parsed.ownerId),
      );
      return s.exists && keyMatches(presented, s.key)
        ? { kind: 'printshop', keyId: s.keyId }
        : undefined;
    }
  }
}
