import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const dir = () => mkdtempSync(path.join(os.tmpdir(), 'cfg-'));

describe('configuration', () => {
  it('defaults to the embedded setup and generates the operator key once', () => {
    const d = dir();
    const first = loadConfig({ DATA_DIR: d });
    expect(first.config.databaseUrl).toBeUndefined();
    expect(first.config.port).toBe(3000);
    expect(first.config.suppliers).toHaveLength(5);
    expect(first.config.suppliers.at(-1)).toBe('printshop');
    expect(first.config.renderAhead).toBe(true);
    expect(loadConfig({ DATA_DIR: d, RENDER_AHEAD: 'off' }).config.renderAhead).toBe(false);
    expect(first.generatedOperatorKey).toBe(
      readFileSync(path.join(d, 'operator-api-key'), 'utf8').trim(),
    );
    const second = loadConfig({ DATA_DIR: d });
    expect(second.generatedOperatorKey).toBeUndefined();
    expect(second.config.operatorApiKey).toBe(first.config.operatorApiKey);
  });

  it.each([
    [{ PORT: 'abc' }, /^invalid configuration: PORT: /],
    [{ DATABASE_URL: 'not a url' }, /^invalid configuration: DATABASE_URL: /],
    [
      { OPERATOR_API_KEY: 'short' },
      /^invalid configuration: OPERATOR_API_KEY: must be at least 32/,
    ],
    [
      { DATABASE_URL: 'postgres://h/db', EDITOR_TOKEN_SECRET: 'x'.repeat(32) },
      /OPERATOR_API_KEY: required/,
    ],
    [{ SUPPLIERS: 'a,printshop' }, /PRINTSHOP_SUPPLIER/],
    [{ LOG_LEVEL: 'loud' }, /^invalid configuration: LOG_LEVEL: /],
    [{ RENDER_AHEAD: 'sometimes' }, /^invalid configuration: RENDER_AHEAD: /],
  ])('stops with one line naming the setting: %j', (env, message) => {
    let error: unknown;
    try {
      loadConfig({ DATA_DIR: dir(), ...env });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });
});
