import { labelAggregate } from '../domain/label/decider.ts';
import { labelStream, type PrintSettings } from '../domain/label/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { RenderError } from '../print/errors.ts';
import { checkOutputProfile, IccError } from '../print/icc.ts';
import {
  DEFAULT_PROFILE_DESCRIPTION,
  DEFAULT_PROFILE_SHA256,
  defaultOutputProfile,
  type OutputProfile,
  outputProfile,
} from '../print/profiles.ts';
import type { FileStorage } from '../storage/port.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';

/** Output profiles live in the image store, by content. */
const profileKey = (sha256: string) => `icc/${sha256}`;

export interface PrintSettingsView {
  outputProfile: { sha256: string; description: string; default: boolean };
  cropMarks: boolean;
  maxInkCoverage: number;
}

const view = (s: PrintSettings): PrintSettingsView => ({
  outputProfile: s.outputProfile
    ? { ...s.outputProfile, default: false }
    : { sha256: DEFAULT_PROFILE_SHA256, description: DEFAULT_PROFILE_DESCRIPTION, default: true },
  cropMarks: s.cropMarks,
  maxInkCoverage: s.maxInkCoverage,
});

/** A label's print settings; another label's (or none) is not found. */
export async function printSettings(ctx: AppContext, labelId: string): Promise<PrintSettingsView> {
  const label = await loadState(ctx.store, labelAggregate, labelStream(labelId));
  if (!label.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
  return view(label.print);
}

async function change(
  ctx: AppContext,
  labelId: string,
  settings: Partial<PrintSettings>,
  metadata: EventMetadata,
): Promise<PrintSettingsView> {
  const r = await handleCommand(
    ctx.store,
    labelAggregate,
    labelStream(labelId),
    { type: 'SetPrintSettings', settings, at: new Date() },
    { ...metadata, labelId },
  );
  if (!r.state.exists) throw new Error('label vanished');
  return view(r.state.print);
}

/** Crop marks and the coverage limit; the profile stays. */
export const setPrintOptions = (
  ctx: AppContext,
  labelId: string,
  options: { cropMarks?: boolean | undefined; maxInkCoverage?: number | undefined },
  metadata: EventMetadata,
) => change(ctx, labelId, options, metadata);

/**
 * Takes the print shop's CMYK output profile for the label's orders from now on: it must
 * be an ICC output profile in CMYK that the colour engine can use (400 otherwise, and
 * nothing is kept). Stored in the image store by content; the label's event names it.
 */
export async function setOutputProfile(
  ctx: AppContext,
  labelId: string,
  bytes: Buffer,
  metadata: EventMetadata,
): Promise<PrintSettingsView> {
  await printSettings(ctx, labelId); // 404 before anything is kept
  let facts: Awaited<ReturnType<typeof checkOutputProfile>>;
  try {
    facts = await checkOutputProfile(bytes);
  } catch (err) {
    if (err instanceof IccError)
      throw new DomainError('invalid', err.message, 'invalid_icc_profile', { field: 'body' });
    throw err;
  }
  await ctx.images.put(profileKey(facts.sha256), bytes);
  return change(
    ctx,
    labelId,
    {
      outputProfile: {
        sha256: facts.sha256,
        description: facts.description || 'CMYK output profile',
      },
    },
    metadata,
  );
}

/** Back to the bundled default profile. */
export const resetOutputProfile = (ctx: AppContext, labelId: string, metadata: EventMetadata) =>
  change(ctx, labelId, { outputProfile: null }, metadata);

const loaded = new Map<string, OutputProfile>();

/**
 * The output profile an order names, by content: the bundled default, or one kept in the
 * image store. Missing is an error that rendering again will not cure.
 */
export async function loadOutputProfile(
  images: FileStorage,
  ref: { sha256: string; description: string },
): Promise<OutputProfile> {
  if (ref.sha256 === DEFAULT_PROFILE_SHA256) return defaultOutputProfile();
  const known = loaded.get(ref.sha256);
  if (known) return known;
  const bytes = await images.get(profileKey(ref.sha256));
  if (!bytes)
    throw new RenderError(
      `the output profile ${ref.description} (${ref.sha256}) is missing`,
      'profile_missing',
    );
  const profile = outputProfile(bytes, ref.description);
  loaded.set(ref.sha256, profile);
  return profile;
}
