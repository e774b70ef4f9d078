import type { Aggregate, Decider } from '../shared/decider.ts';
import { type AuditHeadEvent, auditHeadEvents, auditHeadStream } from './events.ts';

export type AuditHeadCommand = {
  type: 'PublishTreeHead';
  labelId: string;
  head: AuditHeadEvent['data']['head'];
  at: Date;
};

/** the last UTC day a head was published for, if any */
export type AuditHeadState = { lastDay: string | undefined };

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/**
 * A label's daily tree heads: one a day, whoever asks and however often. A second ask on
 * the same day (another projector, a restart, a retried round) decides nothing.
 */
export const auditHeadDecider: Decider<AuditHeadCommand, AuditHeadEvent, AuditHeadState> = {
  initialState: { lastDay: undefined },
  decide(command, state) {
    const day = dayOf(command.at);
    if (state.lastDay !== undefined && state.lastDay >= day) return [];
    return [
      {
        type: 'TreeHeadPublished',
        data: {
          labelId: command.labelId,
          day,
          head: command.head,
          publishedAt: command.at.toISOString(),
        },
      },
    ];
  },
  evolve: (_state, event) => ({ lastDay: event.data.day }),
};

export const auditHeadAggregate: Aggregate<
  AuditHeadCommand,
  AuditHeadEvent,
  AuditHeadState,
  Parameters<typeof auditHeadStream>
> = { events: auditHeadEvents, decider: auditHeadDecider, stream: auditHeadStream };
