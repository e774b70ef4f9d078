import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import { type Price, type PriceListEvent, priceListEvents, priceListStream } from './events.ts';

export type PriceListCommand = {
  type: 'ImportPrices';
  importId: string;
  labelId: string;
  currency: string;
  prices: Price[];
  at: Date;
};
export type PriceListState = { imports: number };

const key = (p: Price) => `${p.supplier}\u0000${p.sku.toLowerCase()}\u0000${p.minQuantity}`;

export const priceListDecider: Decider<PriceListCommand, PriceListEvent, PriceListState> = {
  initialState: { imports: 0 },
  decide(command) {
    const seen = new Set<string>();
    for (const p of command.prices) {
      if (seen.has(key(p))) {
        throw new DomainError(
          'invalid',
          `price for ${p.supplier} ${p.sku} from quantity ${p.minQuantity} is given twice`,
          'duplicate_price',
        );
      }
      seen.add(key(p));
    }
    const { importId, labelId, currency, prices, at } = command;
    return [
      {
        type: 'PricesImported',
        data: { importId, labelId, currency, prices, importedAt: at.toISOString() },
      },
    ];
  },
  evolve(state) {
    return { imports: state.imports + 1 };
  },
};

export const priceListAggregate: Aggregate<
  PriceListCommand,
  PriceListEvent,
  PriceListState,
  Parameters<typeof priceListStream>
> = {
  events: priceListEvents,
  decider: priceListDecider,
  stream: priceListStream,
};
