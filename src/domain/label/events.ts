import { z } from 'zod';
import { encryptedSchema } from '../shared/encrypted.ts';
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

export const ENVIRONMENTS = ['staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** A partner-hosted callback address; its key only ever encrypted (db/encryption-keys.ts). */
const callbackTarget = z.object({ url: z.string(), apiKey: encryptedSchema });

export const LabelCallbacksConfigured = defineEvent(
  'LabelCallbacksConfigured',
  1,
  z.object({
    labelId: z.uuid(),
    staging: callbackTarget.optional(),
    production: callbackTarget,
    environment: z.enum(ENVIRONMENTS),
    configuredAt: z.iso.datetime(),
  }),
);

/** How long the label's orders may take to render before they count as overdue. */
export const DEFAULT_RENDER_WITHIN_MINUTES = 30;
export const renderWithinMinutesSchema = z.number().int().min(0).max(525_600);

export const LabelRenderDeadlineSet = defineEvent(
  'LabelRenderDeadlineSet',
  1,
  z.object({
    labelId: z.uuid(),
    renderWithinMinutes: renderWithinMinutesSchema,
    setAt: z.iso.datetime(),
  }),
);

export type LabelEvent =
  | EventOf<typeof LabelCreated>
  | EventOf<typeof LabelCallbacksConfigured>
  | EventOf<typeof LabelRenderDeadlineSet>;
export const labelEvents = new EventRegistry<LabelEvent>([
  LabelCreated,
  LabelCallbacksConfigured,
  LabelRenderDeadlineSet,
]);
export type PartnerIdEvent = EventOf<typeof PartnerIdReserved>;
export const partnerIdEvents = new EventRegistry<PartnerIdEvent>([PartnerIdReserved]);

export const labelStream = (labelId: string) => `Label-${labelId}`;
export const partnerIdStream = (partnerId: number) => `PartnerId-${partnerId}`;
