import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';
import { storedKeySchema } from '../shared/keys.ts';

export const LabelCreated = defineEvent(
  'LabelCreated',
  1,
  z.object({
    labelId: z.uuid(),
    name: z.string(),
    partnerId: z.number().int().positive(),
    adminKey: storedKeySchema,
    fulfillmentKey: storedKeySchema,
    createdAt: z.iso.datetime(),
  }),
);

/** Claims a partner id for one label; the stream per id makes the claim unique. */
export const PartnerIdReserved = defineEvent(
  'PartnerIdReserved',
  1,
  z.object({ partnerId: z.number().int().positive(), labelId: z.uuid() }),
);

export type LabelEvent = EventOf<typeof LabelCreated>;
export const labelEvents = new EventRegistry<LabelEvent>([LabelCreated]);
export type PartnerIdEvent = EventOf<typeof PartnerIdReserved>;
export const partnerIdEvents = new EventRegistry<PartnerIdEvent>([PartnerIdReserved]);

export const labelStream = (labelId: string) => `Label-${labelId}`;
export const partnerIdStream = (partnerId: number) => `PartnerId-${partnerId}`;
