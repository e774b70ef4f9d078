import { z } from 'zod';
import { defineEvent } from '../shared/events.ts';

/* The order's replay events: its print files made again from the log and compared. */

/** An admin asked for the print files to be rendered again and compared (a replay). */
export const OrderReplayRequested = defineEvent(
  'OrderReplayRequested',
  1,
  z.object({ replayId: z.uuid(), requestedAt: z.iso.datetime() }),
);
export const OrderReplayed = defineEvent(
  'OrderReplayed',
  1,
  z.object({
    replayId: z.string(),
    results: z.array(
      z.object({
        orderItemId: z.uuid(),
        expected: z.string(),
        actual: z.string(),
        matches: z.boolean(),
      }),
    ),
    replayedAt: z.iso.datetime(),
  }),
);
/** A replay gave other bytes than were recorded: never accepted silently. */
export const PrintFileMismatchDetected = defineEvent(
  'PrintFileMismatchDetected',
  1,
  z.object({
    replayId: z.string(),
    orderItemId: z.uuid(),
    expected: z.string(),
    actual: z.string(),
    detectedAt: z.iso.datetime(),
  }),
);
