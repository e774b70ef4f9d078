import { z } from 'zod';
import { encryptedSchema } from '../shared/encrypted.ts';
import { defineEvent } from '../shared/events.ts';

/*
 * The order's recipient and where its items are made: addresses corrected, customers erased, items
 * routed.
 */

/**
 * The recipient's address was corrected (before anything shipped): the one it replaces
 * and the new one, both encrypted with the order's personal-data key; the country in
 * the clear, as routing reads it.
 */
export const ShipToCorrected = defineEvent(
  'ShipToCorrected',
  1,
  z.object({
    previous: encryptedSchema.nullable(),
    shipTo: encryptedSchema,
    country: z.string(),
    correctedAt: z.iso.datetime(),
  }),
);

/**
 * The customer's personal data (name, email, gift message, address) was erased: the
 * order's key is destroyed, so every copy of it in the history stays as ciphertext no
 * one can read. The history itself, and every proof over it, stays whole.
 */
export const CustomerErased = defineEvent(
  'CustomerErased',
  1,
  z.object({ erasedAt: z.iso.datetime() }),
);

/** One facility's place in a routing decision and why it was or was not chosen. */
export const routingCandidateSchema = z.object({
  facilityId: z.uuid(),
  name: z.string(),
  verdict: z.enum([
    'chosen',
    'paused',
    'cannot_print',
    'too_large',
    'other_country',
    'full',
    'more_loaded',
    'not_chosen',
  ]),
  detail: z.string(),
});
export type RoutingCandidate = z.infer<typeof routingCandidateSchema>;

/** The rule that settled a routing decision. */
export const ROUTING_RULES = [
  'only_capable',
  'recipient_country',
  'capacity',
  'least_loaded',
  'operator',
  'unroutable',
] as const;

/**
 * Where an item is made and why: the facility (null: none can make it, the item waits
 * as unroutable), the working day whose capacity it takes (in the facility's time
 * zone), when the order must ship from there (its ship-by clock counted on the
 * facility's working days; null without a deadline), the rule that decided and every
 * facility's verdict. An operator's move names who and why.
 */
export const ItemRouted = defineEvent(
  'ItemRouted',
  1,
  z.object({
    orderItemId: z.uuid(),
    facilityId: z.uuid().nullable(),
    day: z.iso.date().nullable(),
    shipBy: z.iso.datetime().nullable(),
    /** where it was before (null: it was not routed yet): loads move from there */
    from: z.object({ facilityId: z.uuid().nullable(), day: z.iso.date().nullable() }).nullable(),
    reason: z.object({
      rule: z.enum(ROUTING_RULES),
      candidates: z.array(routingCandidateSchema),
      by: z.object({ actor: z.string(), note: z.string() }).optional(),
    }),
    routedAt: z.iso.datetime(),
  }),
);
