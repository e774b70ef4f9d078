import type { Activities } from '../temporal/contract.ts';
import { batchActivities } from './batches.ts';
import type { ActivityDeps } from './deps.ts';
import { importActivities } from './imports.ts';
import { orderActivities } from './orders.ts';

export type { ActivityDeps };

/** Activities as plain async functions over injected dependencies. */
export function createActivities(deps: ActivityDeps): Activities {
  return {
    ...importActivities(deps.store),
    ...orderActivities(deps),
    ...batchActivities(deps),
    async describeEventStore(): Promise<string> {
      const head = await deps.store.headPosition();
      return `${deps.store.kind} at ${head.commit}/${head.prepare}`;
    },
  };
}
