import { randomUUID } from 'node:crypto';
import {
  type FacilityRow,
  facilitiesOf,
  facilityCount,
  facilityRow,
} from '#projections/facilities';
import { facilityAggregate } from '../domain/facility/decider.ts';
import { type FacilitySettings, facilityStream, WEEKDAYS } from '../domain/facility/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { issueKey } from '../domain/shared/keys.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { countryCode, notACountry } from './addresses.ts';
import { handleCommand } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { addingTo } from './label-collections.ts';

/*
 * A label's production facilities: registered with a fulfillment key of their own,
 * changed, paused (their items not yet on the press are routed elsewhere, from the log)
 * and resumed.
 */

export type FacilityInput = Omit<FacilitySettings, 'workingDays' | 'holidays'> & {
  workingDays?: FacilitySettings['workingDays'] | undefined;
  holidays?: string[] | undefined;
};

const invalid = (field: string, message: string) =>
  new DomainError('invalid', message, 'invalid_facility', { field });

/** The settings as kept: the country upper-cased and real, the time zone one Intl knows. */
function settingsOf(input: FacilityInput): FacilitySettings {
  const country = countryCode(input.country);
  if (!country) throw invalid('country', notACountry(input.country));
  try {
    new Intl.DateTimeFormat('en', { timeZone: input.timezone });
  } catch {
    throw invalid('timezone', `${input.timezone} is not an IANA time zone (Europe/Warsaw, say)`);
  }
  const workingDays = input.workingDays ?? ['mon', 'tue', 'wed', 'thu', 'fri'];
  if (workingDays.length === 0)
    throw invalid('workingDays', 'a facility works on one day of the week at least');
  return {
    name: input.name,
    country,
    timezone: input.timezone,
    capabilities: {
      printMethods: [...new Set(input.capabilities.printMethods.map((m) => m.toLowerCase()))],
      ...(input.capabilities.maxItemMm ? { maxItemMm: input.capabilities.maxItemMm } : {}),
    },
    capacity: input.capacity,
    workingDays: WEEKDAYS.filter((d) => workingDays.includes(d)),
    holidays: [...new Set(input.holidays ?? [])].sort(),
  };
}

const notFound = () => new DomainError('not_found', 'facility not found', 'facility_not_found');

export async function registerFacility(
  ctx: AppContext,
  labelId: string,
  input: FacilityInput,
  metadata: EventMetadata,
): Promise<{ facility: FacilityRow; fulfillmentApiKey: string }> {
  const facilityId = randomUUID();
  const key = issueKey('fac', facilityId);
  await addingTo(
    ctx.maximums,
    labelId,
    'facilities',
    () => facilityCount(ctx.pool, labelId),
    async () => {
      const added = await handleCommand(
        ctx.store,
        facilityAggregate,
        facilityStream(facilityId),
        {
          type: 'RegisterFacility',
          facilityId,
          labelId,
          settings: settingsOf(input),
          apiKey: key.stored,
          at: new Date(),
        },
        { ...metadata, labelId },
      );
      // the next one counts this one
      await ctx.readModels.seen('facilities', added.appended?.position);
    },
  );
  return {
    facility: await getFacility(ctx, labelId, facilityId),
    fulfillmentApiKey: key.plaintext,
  };
}

export async function getFacility(
  ctx: AppContext,
  labelId: string,
  facilityId: string,
): Promise<FacilityRow> {
  const row = await facilityRow(ctx.pool, facilityId);
  if (!row || row.label_id !== labelId) throw notFound();
  return row;
}

export const listFacilities = (ctx: AppContext, labelId: string) => facilitiesOf(ctx.pool, labelId);

async function change(
  ctx: AppContext,
  labelId: string,
  facilityId: string,
  command:
    | { type: 'UpdateFacility'; settings: FacilitySettings }
    | { type: 'PauseFacility'; reason?: string | undefined }
    | { type: 'ResumeFacility' },
  metadata: EventMetadata,
): Promise<FacilityRow> {
  const r = await handleCommand(
    ctx.store,
    facilityAggregate,
    facilityStream(facilityId),
    { ...command, labelId, at: new Date() },
    { ...metadata, labelId },
  );
  await ctx.readModels.seen('facilities', r.appended?.position);
  return getFacility(ctx, labelId, facilityId);
}

export const updateFacility = (
  ctx: AppContext,
  labelId: string,
  facilityId: string,
  input: FacilityInput,
  metadata: EventMetadata,
) =>
  change(
    ctx,
    labelId,
    facilityId,
    { type: 'UpdateFacility', settings: settingsOf(input) },
    metadata,
  );

export const pauseFacility = (
  ctx: AppContext,
  labelId: string,
  facilityId: string,
  reason: string | undefined,
  metadata: EventMetadata,
) => change(ctx, labelId, facilityId, { type: 'PauseFacility', reason }, metadata);

export const resumeFacility = (
  ctx: AppContext,
  labelId: string,
  facilityId: string,
  metadata: EventMetadata,
) => change(ctx, labelId, facilityId, { type: 'ResumeFacility' }, metadata);
