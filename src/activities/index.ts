import type { EventStore } from '../eventstore/port.ts';
import { importActivities } from './imports.ts';

export interface ActivityDeps {
  store: EventStore;
}

/** Activities as plain async functions over injected dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...importActivities(deps.store),
    async describeEventStore(): Promise<string> {
      const head = await deps.store.headPosition();
      return `${deps.store.kind} at ${head.commit}/${head.prepare}`;
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
