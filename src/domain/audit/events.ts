import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

/** A signed tree head as the service serves it and the verifier checks it. */
export const signedTreeHeadSchema = z.object({
  treeSize: z.number().int().min(1),
  rootHash: z.string().regex(/^[0-9a-f]{64}$/),
  timestamp: z.iso.datetime(),
  keyId: z.string(),
  signature: z.string(),
});

/**
 * The day's signed tree head, sent to a label's shops (webhook `audit.tree_head`): once
 * a day (UTC) per label, so copies of the heads live outside the service. The head is
 * the latest signed one when it was published; the event is itself a leaf of a later tree.
 */
export const TreeHeadPublished = defineEvent(
  'TreeHeadPublished',
  1,
  z.object({
    labelId: z.uuid(),
    /** the UTC day it is the head of, YYYY-MM-DD */
    day: z.iso.date(),
    head: signedTreeHeadSchema,
    publishedAt: z.iso.datetime(),
  }),
);

export type AuditHeadEvent = EventOf<typeof TreeHeadPublished>;
export const auditHeadEvents = new EventRegistry<AuditHeadEvent>([TreeHeadPublished]);
export const auditHeadStream = (labelId: string) => `AuditTreeHeads-${labelId}`;
