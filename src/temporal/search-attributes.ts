import type { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { temporalCall } from './calls.ts';
import { SEARCH_ATTRIBUTES } from './contract.ts';
import type { SearchAttributeType } from './dev-server.ts';

const DEV_SERVER_TYPE: Record<string, SearchAttributeType> = {
  KEYWORD: 'Keyword',
  TEXT: 'Text',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
};

/** The workflows' search attributes, as the dev server's --search-attribute flags name them. */
export const searchAttributeTypes = (): Record<string, SearchAttributeType> =>
  Object.fromEntries(SEARCH_ATTRIBUTES.map((k) => [k.name, DEV_SERVER_TYPE[k.type]!]));

/** gRPC IndexedValueType numbers (temporal.api.enums.v1) */
const INDEXED: Record<string, number> = {
  TEXT: 1,
  KEYWORD: 2,
  INT: 3,
  DOUBLE: 4,
  BOOL: 5,
  DATETIME: 6,
};

/**
 * Registers the search attributes on a Temporal server the app did not start (self-hosted:
 * the operator service; Temporal Cloud registers them through its own console). One that
 * exists already is fine; a refusal is logged, and workflows then start without them.
 */
export async function registerSearchAttributes(
  client: Client,
  namespace: string,
  log: Logger,
): Promise<void> {
  try {
    await temporalCall(client, () =>
      (client.connection as Connection).operatorService.addSearchAttributes({
        namespace,
        searchAttributes: Object.fromEntries(
          SEARCH_ATTRIBUTES.map((k) => [k.name, INDEXED[k.type]!]),
        ),
      }),
    );
  } catch (err) {
    if (/already exists/i.test(String((err as Error).message))) return;
    log.warn(
      { error: (err as Error).message },
      'could not register the search attributes OrderId, LabelId, OrderStatus on Temporal',
    );
  }
}
