import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** CIP4's XJDF schema versions a ticket is checked against. */
export const XJDF_SCHEMAS = ['2_0', '2_1', '2_2'] as const;

/**
 * The errors xmllint finds in an XJDF ticket against CIP4's official schema (from the
 * xJdfLib jar; `npm test` and CI set XJDF_SCHEMA_DIR): empty when it validates. Without
 * the schema this throws: a ticket test cannot pass unchecked.
 */
export function xjdfErrors(xml: string, version: (typeof XJDF_SCHEMAS)[number] = '2_0'): string[] {
  const dir = process.env.XJDF_SCHEMA_DIR;
  const schema = dir ? path.join(dir, `jdfschema_${version}.xsd`) : '';
  if (!dir || !existsSync(schema))
    throw new Error('XJDF_SCHEMA_DIR has no CIP4 schema: run scripts/install-xjdf-schema.sh');
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'xjdf-'));
  try {
    const file = path.join(tmp, 'ticket.xjdf');
    writeFileSync(file, xml);
    try {
      execFileSync('xmllint', ['--noout', '--schema', schema, file], {
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 64 * 1024 * 1024,
      });
      return [];
    } catch (err) {
      const stderr = String((err as { stderr?: Buffer }).stderr ?? err);
      return stderr
        .split('\n')
        .filter((l) => l.includes('validity error'))
        .slice(0, 20);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
