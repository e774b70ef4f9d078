import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

/** Who a session of the ops page is: the operator, or a label's admin (no key is recorded). */
export const opsViewerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('operator') }),
  z.object({ kind: z.literal('admin'), labelId: z.uuid() }),
]);
export type OpsViewer = z.infer<typeof opsViewerSchema>;

/** Someone opened the ops page with a key: a session, valid until it expires or ends. */
export const OpsSessionStarted = defineEvent(
  'OpsSessionStarted',
  1,
  z.object({
    sessionId: z.uuid(),
    viewer: opsViewerSchema,
    startedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  }),
);

export const OPS_SESSION_END_REASONS = ['logged_out', 'ended_by_viewer'] as const;

/** The session was ended before it expired: its cookie opens nothing from now on. */
export const OpsSessionEnded = defineEvent(
  'OpsSessionEnded',
  1,
  z.object({ reason: z.enum(OPS_SESSION_END_REASONS), endedAt: z.iso.datetime() }),
);

export type OpsSessionEvent = EventOf<typeof OpsSessionStarted> | EventOf<typeof OpsSessionEnded>;
export const opsSessionEvents = new EventRegistry<OpsSessionEvent>([
  OpsSessionStarted,
  OpsSessionEnded,
]);
export const opsSessionStream = (sessionId: string) => `OpsSession-${sessionId}`;
