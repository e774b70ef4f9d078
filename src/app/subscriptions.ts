import { DomainError } from '../domain/shared/decider.ts';
import type { ParkedEvent } from '../subscriptions/parked.ts';
import {
  type Subscriber,
  type SubscriptionRunner,
  type SubscriptionStatus,
  UnknownSubscriptionError,
} from '../subscriptions/subscription-runner.ts';

/** Every runner of this process: projections and, where there is a Temporal client, reactors. */
export type Runners = SubscriptionRunner<Subscriber>[];

export interface SubscriptionView extends SubscriptionStatus {
  /** the first parked events, oldest first */
  parkedEvents: ParkedEvent[];
}

const PARKED_SHOWN = 20;

/** Projections and reactors: checkpoint, lag, whether this process runs them, parked events. */
export async function subscriptionStatus(runners: Runners): Promise<SubscriptionView[]> {
  const out: SubscriptionView[] = [];
  for (const runner of runners) {
    for (const s of await runner.status()) {
      out.push({
        ...s,
        parkedEvents: s.parked > 0 ? await runner.parked(s.name, PARKED_SHOWN) : [],
      });
    }
  }
  return out;
}

function runnerOf(runners: Runners, name: string) {
  const runner = runners.find((r) => r.names.includes(name));
  if (!runner)
    throw new DomainError(
      'not_found',
      new UnknownSubscriptionError(
        name,
        runners.flatMap((r) => r.names),
      ).message,
      'subscription_not_found',
    );
  return runner;
}

export function parkedEvents(
  runners: Runners,
  name: string,
  limit: number,
): Promise<ParkedEvent[]> {
  return runnerOf(runners, name).parked(name, limit);
}

/** Takes parked events again after a fix: one (by id) or all of a projection or reactor. */
export async function retryParked(runners: Runners, name: string, eventId?: string) {
  const r = await runnerOf(runners, name).retryParked(name, eventId);
  if (eventId !== undefined && r.retried === 0)
    throw new DomainError(
      'not_found',
      `no parked event ${eventId} in ${name}`,
      'parked_event_not_found',
    );
  return r;
}
