import type pg from 'pg';
import type { FoldedStates } from '../app/folded-states.ts';
import type { OrderState } from '../domain/order/decider.ts';
import type { EventStore } from '../eventstore/port.ts';
import type { Renders } from '../print/image-work.ts';
import type { RendersAhead } from '../print/renders-ahead.ts';
import type { StoredRender } from '../print/stored-render.ts';
import type { Impositions } from '../production/imposition-work.ts';
import type { StoreLocation } from '../storage/location.ts';
import type { FileStorage } from '../storage/port.ts';

/** What the activities work with, injected by the worker. */
export interface ActivityDeps {
  store: EventStore;
  /** print files */
  storage: FileStorage;
  /** design images, content-addressed */
  images: FileStorage;
  /** where both stores live: the render processes read images and put print files there */
  stores: StoreLocation;
  /** the render processes */
  renders: Pick<Renders, 'render' | 'renderVariable' | 'reprintVariable'>;
  /** the imposition processes (press runs) */
  impositions: Pick<Impositions, 'impose'>;
  /** print files rendered ahead of their activity, for it to take (renderAheadOf) */
  ahead?: RendersAhead<StoredRender>;
  /** told how long each item's rendering took (seconds) and how it ended */
  observeRender?: (seconds: number, outcome: 'ready' | 'failed') => void;
  /** the read models */
  db: pg.Pool;
  /** orders' states as this process last appended them: a step decides on it unread */
  orderStates?: FoldedStates<OrderState>;
}
