import { z } from 'zod';
import type { FacilityRow } from '#projections/facilities';
import { WEEKDAYS } from '../../domain/facility/events.ts';
import { count, instant } from './common.ts';

const mm = z.number().min(1).max(100_000);

export const facilityBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    country: z
      .string()
      .describe('ISO 3166-1 alpha-2: where it is (routing prefers the recipient’s)'),
    timezone: z
      .string()
      .min(1)
      .max(64)
      .describe('IANA time zone: its working days are counted there'),
    capabilities: z
      .object({
        printMethods: z.array(z.string().trim().min(1).max(100)).min(1).max(20),
        maxItemMm: z.object({ width: mm, height: mm }).strict().optional(),
      })
      .strict(),
    capacity: z.object({ itemsPerDay: z.number().int().min(1).max(1_000_000) }).strict(),
    workingDays: z.array(z.enum(WEEKDAYS)).min(1).max(7).optional().describe('mon-fri when absent'),
    holidays: z.array(z.iso.date()).max(366).optional(),
  })
  .strict()
  .meta({
    id: 'FacilitySettings',
    example: {
      name: 'Kraków',
      country: 'PL',
      timezone: 'Europe/Warsaw',
      capabilities: { printMethods: ['screen'], maxItemMm: { width: 400, height: 500 } },
      capacity: { itemsPerDay: 500 },
      workingDays: ['mon', 'tue', 'wed', 'thu', 'fri'],
      holidays: ['2026-12-25'],
    },
  });

export const facilitySchema = z
  .object({
    facilityId: z.uuid(),
    name: z.string(),
    country: z.string(),
    timezone: z.string(),
    capabilities: z.object({
      printMethods: z.array(z.string()),
      maxItemMm: z.object({ width: z.number(), height: z.number() }).optional(),
    }),
    capacity: z.object({ itemsPerDay: count }),
    workingDays: z.array(z.enum(WEEKDAYS)),
    holidays: z.array(z.iso.date()),
    paused: z.boolean(),
    apiKeyPrefix: z.string().describe('the start of its fulfillment key, to tell keys apart'),
    registeredAt: instant,
    updatedAt: instant,
  })
  .meta({
    id: 'Facility',
    example: {
      facilityId: '2f9c7a4e-5b1d-4c3e-9a8f-1e2d3c4b5a69',
      name: 'Kraków',
      country: 'PL',
      timezone: 'Europe/Warsaw',
      capabilities: { printMethods: ['screen'] },
      capacity: { itemsPerDay: 500 },
      workingDays: ['mon', 'tue', 'wed', 'thu', 'fri'],
      holidays: [],
      paused: false,
      apiKeyPrefix: 'ep_fac_2f9c7a4e',
      registeredAt: '2026-11-27T08:00:00.000Z',
      updatedAt: '2026-11-27T08:00:00.000Z',
    },
  });

export const facilityWithKeySchema = facilitySchema
  .extend({
    fulfillmentApiKey: z
      .string()
      .describe(
        "the facility's fulfillment key: shown once; it sees and acts on its own items only",
      ),
  })
  .meta({ id: 'FacilityWithKey' });

export const pauseBody = z
  .object({ reason: z.string().trim().min(1).max(500).optional() })
  .strict()
  .nullish()
  .meta({ id: 'FacilityPause' });

export const routeBody = z
  .object({
    facilityId: z.uuid({ message: 'must be a UUID' }),
    reason: z.string().trim().min(1).max(500).describe('why: kept in the order’s history'),
  })
  .strict()
  .meta({
    id: 'ItemRoute',
    example: {
      facilityId: '2f9c7a4e-5b1d-4c3e-9a8f-1e2d3c4b5a69',
      reason: 'press 2 in Berlin is down',
    },
  });

export const routedSchema = z
  .object({ orderItemId: z.uuid(), facilityId: z.uuid(), day: z.iso.date() })
  .meta({
    id: 'ItemRouted',
    example: {
      orderItemId: '0b6f3c1e-2d4a-4f5b-8c9d-7e6f5a4b3c2d',
      facilityId: '2f9c7a4e-5b1d-4c3e-9a8f-1e2d3c4b5a69',
      day: '2026-11-27',
    },
  });

export function toFacility(row: FacilityRow): z.infer<typeof facilitySchema> {
  const s = row.settings;
  return {
    facilityId: row.facility_id,
    name: s.name,
    country: s.country,
    timezone: s.timezone,
    capabilities: s.capabilities,
    capacity: s.capacity,
    workingDays: s.workingDays,
    holidays: s.holidays,
    paused: row.paused,
    apiKeyPrefix: row.key_prefix,
    registeredAt: new Date(row.registered_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
