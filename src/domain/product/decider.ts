import type { Aggregate, Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/decider.ts';
import type { Configuration } from './configuration.ts';
import { type ProductEvent, productEvents, productStream } from './events.ts';

export type ProductCommand =
  | {
      type: 'ImportConfiguration';
      supplier: string;
      sku: string;
      configuration: Configuration;
      importId: string;
    }
  /** a new SKU that must not exist yet (printshop SKU import) */
  | {
      type: 'AddConfiguration';
      supplier: string;
      sku: string;
      configuration: Configuration;
      importId: string;
    }
  | { type: 'StageRename'; sku: string; newSku: string }
  | { type: 'PublishRename'; sku: string; newSku: string }
  | {
      type: 'ReceiveRename';
      supplier: string;
      sku: string;
      oldSku: string;
      configuration: Configuration;
    };

export type ProductState =
  | { status: 'none' }
  | {
      status: 'live' | 'renamed';
      supplier: string;
      sku: string;
      configuration: Configuration;
      stagedRename: string | undefined;
      renamedTo: string | undefined;
      renamedFrom: string | undefined;
    };

const notFound = (sku: string) =>
  new DomainError('not_found', `SKU ${sku} is not on the platform`, 'sku_not_found');

const skuExists = (sku: string) =>
  new DomainError('conflict', `SKU ${sku} is already on the platform`, 'sku_exists');

function live(state: ProductState, what: string) {
  if (state.status !== 'live') throw notFound(what);
  return state;
}

export const productDecider: Decider<ProductCommand, ProductEvent, ProductState> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'AddConfiguration':
      case 'ImportConfiguration': {
        // an import replaces what is there; an addition needs the SKU to be free
        if (command.type === 'AddConfiguration' && state.status === 'live')
          throw skuExists(command.sku);
        const { supplier, sku, configuration, importId } = command;
        return [
          {
            type: 'ProductConfigurationImported',
            data: { supplier, sku, configuration, importId },
          },
        ];
      }
      case 'StageRename': {
        const s = live(state, command.sku);
        if (s.stagedRename === command.newSku) return [];
        return [
          {
            type: 'ProductSkuRenameStaged',
            data: { supplier: s.supplier, sku: s.sku, newSku: command.newSku },
          },
        ];
      }
      case 'PublishRename': {
        const s = live(state, command.sku);
        return [
          {
            type: 'ProductSkuRenamed',
            data: { supplier: s.supplier, sku: s.sku, newSku: command.newSku },
          },
        ];
      }
      case 'ReceiveRename': {
        if (state.status === 'live') {
          // the same rename retried after a crash between its two appends goes on
          if (state.renamedFrom === command.oldSku) return [];
          throw skuExists(command.sku);
        }
        const { supplier, sku, oldSku, configuration } = command;
        return [
          {
            type: 'ProductConfigurationRenamedFrom',
            data: { supplier, sku, oldSku, configuration },
          },
        ];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ProductConfigurationImported':
      case 'ProductConfigurationRenamedFrom':
        return {
          status: 'live',
          supplier: event.data.supplier,
          sku: event.data.sku,
          configuration: event.data.configuration,
          stagedRename: undefined,
          renamedTo: undefined,
          renamedFrom:
            event.type === 'ProductConfigurationRenamedFrom' ? event.data.oldSku : undefined,
        };
      case 'ProductSkuRenameStaged':
        return state.status === 'none' ? state : { ...state, stagedRename: event.data.newSku };
      case 'ProductSkuRenamed':
        return state.status === 'none'
          ? state
          : { ...state, status: 'renamed', stagedRename: undefined, renamedTo: event.data.newSku };
    }
  },
};

export const productAggregate: Aggregate<
  ProductCommand,
  ProductEvent,
  ProductState,
  Parameters<typeof productStream>
> = {
  events: productEvents,
  decider: productDecider,
  stream: productStream,
};
