import type pg from 'pg';
import type { EventStore } from '../eventstore/port.ts';
import type { Renders } from '../print/image-work.ts';
import type { FileStorage } from '../storage/port.ts';
import { batchActivities } from './batches.ts';
import { importActivities } from './imports.ts';
import { orderActivities } from './orders.ts';

export interface ActivityDeps {
  store: EventStore;
  /** print files */
  storage: FileStorage;
  /** design images, content-addressed */
  images: FileStorage;
  /** the render processes */
  renders: Renders;
  /** told how long each item's rendering took (seconds) and how it ended */
  observeRender?: (seconds: number, outcome: 'ready' | 'failed') => void;
  /** the read models */
  db: pg.Pool;
}

/** Activities as plain async functions over injected dependencies. */
export function createActivities(deps: ActivityDeps) {
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

export type Activities = ReturnType<typeof createActivities>;
