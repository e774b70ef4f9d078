import type { Aggregate, Decider } from '../shared/decider.ts';
import * as approvals from './approvals.ts';
import * as barcodes from './barcodes.ts';
import * as deadlines from './deadlines.ts';
import { type OrderEvent, orderEvents, orderStream } from './events.ts';
import * as holds from './holds.ts';
import * as intake from './intake.ts';
import * as mockups from './mockups.ts';
import * as recipients from './recipients.ts';
import * as rendering from './rendering.ts';
import * as replays from './replays.ts';
import * as revisions from './revisions.ts';
import * as routing from './routing.ts';
import * as shipments from './shipments.ts';
import * as shopFloor from './shop-floor.ts';
import type {
  Command,
  DecideHandlers,
  Event,
  EvolveHandlers,
  OrderCommand,
  OrderState,
  Recorded,
} from './state.ts';

export type { ItemState, OrderCommand, OrderState, ShipmentState } from './state.ts';
export { defaultBarcode, effectiveShipBy, mockupKey } from './state.ts';

/**
 * The order's decider: one stream per order, one state; each command is decided by the
 * part of the order's life it belongs to (intake.ts, rendering.ts, barcodes.ts, replays.ts,
 * shop-floor.ts, shipments.ts, holds.ts, deadlines.ts, mockups.ts, approvals.ts, revisions.ts,
 * recipients.ts, routing.ts), and this only
 * dispatches and folds.
 */
const handlers: Required<DecideHandlers> = {
  ...intake.decide,
  ...rendering.decide,
  ...barcodes.decide,
  ...replays.decide,
  ...shopFloor.decide,
  ...shipments.decide,
  ...holds.decide,
  ...deadlines.decide,
  ...mockups.decide,
  ...approvals.decide,
  ...revisions.decide,
  ...recipients.decide,
  ...routing.decide,
};

/** Every command of the order (a test checks each has its given/when/then spec). */
export const ORDER_COMMAND_TYPES = Object.keys(handlers) as OrderCommand['type'][];

const evolvers: EvolveHandlers = {
  ...intake.evolve,
  ...rendering.evolve,
  ...barcodes.evolve,
  ...replays.evolve,
  ...shopFloor.evolve,
  ...shipments.evolve,
  ...holds.evolve,
  ...deadlines.evolve,
  ...mockups.evolve,
  ...approvals.evolve,
  ...revisions.evolve,
  ...recipients.evolve,
  ...routing.evolve,
};

export const orderDecider: Decider<OrderCommand, OrderEvent, OrderState> = {
  initialState: { exists: false },
  decide(command, state) {
    // the handler of this command's own type (TypeScript cannot pair a union's member
    // with its entry of a mapped type by itself)
    const decide = handlers[command.type] as (
      c: Command<OrderCommand['type']>,
      s: OrderState,
      at: string,
    ) => OrderEvent[];
    return decide(command, state, command.at.toISOString());
  },
  evolve(state, event) {
    if (event.type === 'OrderReceived') return intake.onOrderReceived(event);
    if (!state.exists) return state;
    const on = evolvers[event.type] as
      | ((s: Recorded, e: Event<OrderEvent['type']>) => OrderState)
      | undefined;
    return on ? on(state, event) : state;
  },
};

export const orderAggregate: Aggregate<
  OrderCommand,
  OrderEvent,
  OrderState,
  Parameters<typeof orderStream>
> = {
  events: orderEvents,
  decider: orderDecider,
  stream: orderStream,
};
