import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';
import { storedKeySchema } from '../shared/keys.ts';

/*
 * A production facility of a label: where it is, what it can make, how much a day, and its own
 * fulfillment key.
 */

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export const facilitySettingsSchema = z.object({
  name: z.string(),
  country: z.string(),
  timezone: z.string(),
  capabilities: z.object({
    printMethods: z.array(z.string()),
    maxItemMm: z.object({ width: z.number(), height: z.number() }).optional(),
  }),
  capacity: z.object({ itemsPerDay: z.number().int() }),
  workingDays: z.array(z.enum(WEEKDAYS)),
  holidays: z.array(z.iso.date()),
});
export type FacilitySettings = z.infer<typeof facilitySettingsSchema>;

export const FacilityRegistered = defineEvent(
  'FacilityRegistered',
  1,
  z.object({
    facilityId: z.uuid(),
    labelId: z.uuid(),
    settings: facilitySettingsSchema,
    /** the facility's fulfillment key, as its sha256 only */
    apiKey: storedKeySchema,
    registeredAt: z.iso.datetime(),
  }),
);
/** The facility's settings as they are from now on (all of them). */
export const FacilityUpdated = defineEvent(
  'FacilityUpdated',
  1,
  z.object({ settings: facilitySettingsSchema, updatedAt: z.iso.datetime() }),
);
/** No new item is routed there; its items not yet on the press are routed elsewhere. */
export const FacilityPaused = defineEvent(
  'FacilityPaused',
  1,
  z.object({ reason: z.string().optional(), pausedAt: z.iso.datetime() }),
);
export const FacilityResumed = defineEvent(
  'FacilityResumed',
  1,
  z.object({ resumedAt: z.iso.datetime() }),
);

export type FacilityEvent =
  | EventOf<typeof FacilityRegistered>
  | EventOf<typeof FacilityUpdated>
  | EventOf<typeof FacilityPaused>
  | EventOf<typeof FacilityResumed>;

export const facilityEvents = new EventRegistry<FacilityEvent>([
  FacilityRegistered,
  FacilityUpdated,
  FacilityPaused,
  FacilityResumed,
]);

export const facilityStream = (facilityId: string) => `Facility-${facilityId}`;
