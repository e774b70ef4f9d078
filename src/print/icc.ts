import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';

/** What a CMYK output profile is, read from its header and tags. */
export interface IccFacts {
  sha256: string;
  /** its `desc` tag, e.g. "ISO Coated v2 (ECI)" */
  description: string;
}

/** Why bytes are not a CMYK output profile, in a sentence. */
export class IccError extends Error {
  override name = 'IccError';
}

const ascii = (b: Buffer, at: number, n: number) => b.subarray(at, at + n).toString('latin1');

/** The profile's `desc` tag: ICC v2 'desc' (ASCII) or v4 'mluc' (UTF-16BE, first record). */
function description(b: Buffer): string {
  const count = b.readUInt32BE(128);
  for (let i = 0; i < count && 132 + i * 12 + 12 <= b.length; i++) {
    const at = 132 + i * 12;
    if (ascii(b, at, 4) !== 'desc') continue;
    const off = b.readUInt32BE(at + 4);
    const len = b.readUInt32BE(at + 8);
    if (off + len > b.length || len < 12) return '';
    const type = ascii(b, off, 4);
    if (type === 'desc') {
      const n = b.readUInt32BE(off + 8);
      return ascii(b, off + 12, Math.min(n, len - 12)).replace(/\0.*$/s, '');
    }
    if (type === 'mluc') {
      const size = b.readUInt32BE(off + 20);
      const start = off + b.readUInt32BE(off + 24);
      const chars = b.subarray(start, start + Math.min(size, len));
      return Buffer.from(chars).swap16().toString('utf16le').replace(/\0.*$/s, '');
    }
  }
  return '';
}

/**
 * Checks that bytes are an ICC profile a print shop's CMYK output condition can be:
 * the header's size and `acsp` signature, device class output (`prtr`), data colour
 * space CMYK, a PCS of Lab or XYZ; and that the colour engine can convert with it.
 */
export async function checkOutputProfile(bytes: Buffer): Promise<IccFacts> {
  if (bytes.length < 132 || ascii(bytes, 36, 4) !== 'acsp')
    throw new IccError('not an ICC profile (no acsp signature)');
  if (bytes.readUInt32BE(0) !== bytes.length)
    throw new IccError(
      `the profile says it has ${bytes.readUInt32BE(0)} bytes, not ${bytes.length}`,
    );
  const cls = ascii(bytes, 12, 4);
  if (cls !== 'prtr')
    throw new IccError(
      `the profile's device class is "${cls.trim()}", not an output (prtr) profile`,
    );
  const space = ascii(bytes, 16, 4);
  if (space !== 'CMYK')
    throw new IccError(`the profile's colour space is "${space.trim()}", not CMYK`);
  const pcs = ascii(bytes, 20, 4);
  if (pcs !== 'Lab ' && pcs !== 'XYZ ')
    throw new IccError(`the profile's connection space "${pcs.trim()}" is not Lab or XYZ`);
  const facts = {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    description: description(bytes),
  };
  try {
    await toCmyk(profileFile(bytes, facts.sha256), [128, 64, 32]);
  } catch (err) {
    throw new IccError(
      `the colour engine cannot use the profile (${(err as Error).message.split('\n')[0]})`,
    );
  }
  return facts;
}

const TMP = path.join(os.tmpdir(), `editor-platform-icc-${process.getuid?.() ?? 'user'}`);

/** The colour engine reads profiles from files: each kept once, by its content. */
export function profileFile(bytes: Buffer, sha256: string): string {
  const file = path.join(TMP, `${sha256}.icc`);
  if (existsSync(file)) return file;
  mkdirSync(TMP, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, bytes, { mode: 0o600 });
  renameSync(tmp, file);
  return file;
}

/** One sRGB colour (0-255) through an output profile: CMYK, 0-255 each. */
export async function toCmyk(
  profilePath: string,
  rgb: [number, number, number],
): Promise<[number, number, number, number]> {
  const { data, info } = await sharp(Buffer.from(rgb), {
    raw: { width: 1, height: 1, channels: 3 },
  })
    .withIccProfile(profilePath)
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 4) throw new Error('the profile gave no CMYK');
  return [data[0]!, data[1]!, data[2]!, data[3]!];
}
