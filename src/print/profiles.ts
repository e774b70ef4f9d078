import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { profileFile, toCmyk } from './icc.ts';

/** A CMYK output condition: the print shop's ICC profile, or the bundled default. */
export interface OutputProfile {
  sha256: string;
  description: string;
  bytes: Buffer;
  /** where the colour engine reads it */
  path: string;
}

/**
 * The default output profile: "Chemical proof", a generic CMYK printer profile made with
 * ArgyllCMS by Graeme W. Gill and released into the public domain (the CMYK profile
 * libvips ships). Bundled as a file, so its bytes, and every print file made with it,
 * stay the same whatever version of the image library is installed.
 */
const DEFAULT = readFileSync(new URL('./profiles/chemical-proof.icc', import.meta.url));
export const DEFAULT_PROFILE_SHA256 = createHash('sha256').update(DEFAULT).digest('hex');
export const DEFAULT_PROFILE_DESCRIPTION = 'Chemical proof (ArgyllCMS, public domain)';

export function outputProfile(bytes: Buffer, description: string): OutputProfile {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { sha256, description, bytes, path: profileFile(bytes, sha256) };
}

let fallback: OutputProfile | undefined;
export function defaultOutputProfile(): OutputProfile {
  fallback ??= outputProfile(DEFAULT, DEFAULT_PROFILE_DESCRIPTION);
  return fallback;
}

export type Cmyk = [number, number, number, number];

const colours = new Map<string, Promise<Cmyk>>();

/**
 * A design colour (#rrggbb, sRGB) as the profile's CMYK, 0-1 each. Black is 100% K, not
 * the profile's rich black: text and lines in black must print from the K plate alone.
 */
export function cmykOf(profile: OutputProfile, hex: string): Promise<Cmyk> {
  const key = `${profile.sha256}:${hex.toLowerCase()}`;
  let c = colours.get(key);
  if (!c) {
    const n = Number.parseInt(hex.slice(1), 16);
    c =
      n === 0
        ? Promise.resolve([0, 0, 0, 1])
        : toCmyk(profile.path, [(n >> 16) & 255, (n >> 8) & 255, n & 255]).then(
            (v) => v.map((x) => x / 255) as Cmyk,
          );
    colours.set(key, c);
  }
  return c;
}
