import type pg from 'pg';
import { decrypt, encrypt, ensureOwnerKey, ownerKey } from '../db/encryption-keys.ts';
import { labelAggregate } from '../domain/label/decider.ts';
import { type Environment, labelStream } from '../domain/label/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata, EventStore } from '../eventstore/port.ts';
import type { CallbackTarget } from '../partner/client.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';

export interface CallbackInput {
  staging?: { url: string; apiKey: string } | undefined;
  production: { url: string; apiKey: string };
  environment: Environment;
}

/** Sets a label's partner callback addresses; the keys are stored encrypted only. */
export async function configureCallbacks(
  { store, pool }: AppContext,
  labelId: string,
  input: CallbackInput,
  metadata: EventMetadata,
): Promise<void> {
  const label = await loadState(store, labelAggregate, labelStream(labelId));
  if (!label.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
  const key = await ensureOwnerKey(pool, labelId);
  const seal = (t: { url: string; apiKey: string }) => ({
    url: t.url,
    apiKey: encrypt(key, t.apiKey),
  });
  await handleCommand(
    store,
    labelAggregate,
    labelStream(labelId),
    {
      type: 'ConfigureCallbacks',
      staging: input.staging && seal(input.staging),
      production: seal(input.production),
      environment: input.environment,
      at: new Date(),
    },
    { ...metadata, labelId },
  );
}

/**
 * The label's callback for its active environment; undefined: no such label; null: not configured.
 */
export async function activeCallback(
  store: EventStore,
  pool: pg.Pool,
  labelId: string,
): Promise<CallbackTarget | null | undefined> {
  const label = await loadState(store, labelAggregate, labelStream(labelId));
  if (!label.exists) return undefined;
  if (!label.callbacks) return null;
  const { environment } = label.callbacks;
  const target = environment === 'staging' ? label.callbacks.staging : label.callbacks.production;
  const key = await ownerKey(pool, labelId);
  if (!target || !key) return null;
  return { url: target.url, apiKey: decrypt(key, target.apiKey) as string, environment };
}
