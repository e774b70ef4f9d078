import type { EventStore, NewEvent } from '../eventstore/port.ts';
import type { Metrics } from './metrics.ts';

/** What an appended event adds to the business counters. */
function count(metrics: Metrics, e: NewEvent): void {
  switch (e.type) {
    case 'OrderReceived':
      metrics.ordersReceived.inc();
      break;
    case 'PrintFileGenerated':
      metrics.itemsRendered.inc();
      break;
    case 'OrderItemFailed':
      metrics.itemsFailed.inc({ reason: String(e.data.kind ?? 'unknown') });
      break;
    case 'OrderItemReprintRequested':
      metrics.reprints.inc({ reason: String(e.data.reason ?? 'other') });
      break;
  }
}

/**
 * The event store with its appends timed and the business counters (orders received,
 * items rendered and failed) moved by what this process appended. Every command goes
 * through the store, so nothing is missed; an append of events already stored (a retried
 * activity) counts nothing.
 */
export function instrumentedStore(store: EventStore, metrics: Metrics): EventStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'append') {
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      }
      const append: EventStore['append'] = async (streamId, events, expected) => {
        const end = metrics.appendDuration.startTimer();
        try {
          const r = await target.append(streamId, events, expected);
          end({ outcome: 'appended' });
          if (!r.duplicate) for (const e of events) count(metrics, e);
          return r;
        } catch (err) {
          end({ outcome: 'refused' });
          throw err;
        }
      };
      return append;
    },
  });
}
