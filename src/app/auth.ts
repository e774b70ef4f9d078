import { facilityAggregate } from '../domain/facility/decider.ts';
import { facilityStream } from '../domain/facility/events.ts';
import { labelAggregate } from '../domain/label/decider.ts';
import { labelStream } from '../domain/label/events.ts';
import { opsSessionStream } from '../domain/ops-session/events.ts';
import { printshopKeyAggregate } from '../domain/printshop-key/decider.ts';
import { printshopKeyStream } from '../domain/printshop-key/events.ts';
import { keyMatches, parseKey, secretEquals } from '../domain/shared/keys.ts';
import { shopIntegrationAggregate } from '../domain/shop-integration/decider.ts';
import { type Permission, shopIntegrationStream } from '../domain/shop-integration/events.ts';
import type { EventStore } from '../eventstore/port.ts';
import { loadState } from './command-handler.ts';
import type { StreamStateCache } from './stream-state-cache.ts';

export type Principal =
  | { kind: 'operator' }
  | { kind: 'admin'; labelId: string }
  | { kind: 'integration'; labelId: string; integrationId: string; permissions: Permission[] }
  /** a facility's key: its own items only (absent: the label's key, every item) */
  | { kind: 'fulfillment'; labelId: string; partnerId: number; facilityId?: string }
  | { kind: 'printshop'; keyId: string };

export type PrincipalKind = Principal['kind'];

/**
 * The streams a key's owner (or an ops session) is folded from: appends to them must
 * reach every cache of them, in every process.
 */
export const KEY_OWNER_STREAMS = [
  labelStream(''),
  shopIntegrationStream(''),
  printshopKeyStream(''),
  opsSessionStream(''),
  facilityStream(''),
];

/**
 * Finds who a presented key belongs to, or undefined for an unknown key. The owning
 * aggregate is read from the event store itself, not from a read model, so a key is
 * valid from the moment it is issued and refused from the moment it is rotated. With a
 * cache, owners' states are kept until their stream changes: in this process that is
 * still at once; another process learns of it by notification, milliseconds later.
 */
export async function resolveApiKey(
  store: EventStore,
  operatorKey: string,
  presented: string,
  cache?: StreamStateCache,
): Promise<Principal | undefined> {
  const parsed = parseKey(presented);
  if (!parsed) {
    return secretEquals(presented, operatorKey) ? { kind: 'operator' } : undefined;
  }
  switch (parsed.kind) {
    case 'adm':
    case 'ful': {
      const stream = labelStream(parsed.ownerId);
      const s = await cached(cache, stream, () => loadState(store, labelAggregate, stream));
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
      const stream = shopIntegrationStream(parsed.ownerId);
      const s = await cached(cache, stream, () =>
        loadState(store, shopIntegrationAggregate, stream),
      );
      if (!s.exists || !keyMatches(presented, s.apiKey)) return undefined;
      return {
        kind: 'integration',
        labelId: s.labelId,
        integrationId: s.integrationId,
        permissions: s.permissions,
      };
    }
    case 'fac': {
      const stream = facilityStream(parsed.ownerId);
      const f = await cached(cache, stream, () => loadState(store, facilityAggregate, stream));
      if (!f.exists || !keyMatches(presented, f.apiKey)) return undefined;
      const label = labelStream(f.labelId);
      const s = await cached(cache, label, () => loadState(store, labelAggregate, label));
      if (!s.exists) return undefined;
      return {
        kind: 'fulfillment',
        labelId: f.labelId,
        partnerId: s.partnerId,
        facilityId: f.facilityId,
      };
    }
    case 'psk': {
      const stream = printshopKeyStream(parsed.ownerId);
      const s = await cached(cache, stream, () => loadState(store, printshopKeyAggregate, stream));
      return s.exists && keyMatches(presented, s.key)
        ? { kind: 'printshop', keyId: s.keyId }
        : undefined;
    }
  }
}

/** Only owners that exist are kept: unknown owner ids in presented keys must not fill the cache. */
function cached<S extends { exists: boolean }>(
  cache: StreamStateCache | undefined,
  streamId: string,
  read: () => Promise<S>,
): Promise<S> {
  return cache ? cache.load(streamId, read, (s) => s.exists) : read();
}
