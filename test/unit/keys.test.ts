import { describe, expect, it } from 'vitest';
import { issueKey, keyMatches, parseKey, secretEquals } from '../../src/domain/shared/keys.ts';

const owner = '0a7417e3-5285-416e-8c6f-d13b3d968001';

describe('API keys', () => {
  it('names its kind and owner, and stores only a hash and a prefix', () => {
    const k = issueKey('int', owner);
    expect(parseKey(k.plaintext)).toEqual({ kind: 'int', ownerId: owner, plaintext: k.plaintext });
    expect(JSON.stringify(k.stored)).not.toContain(k.plaintext.slice(16));
    expect(k.stored.prefix).toBe(k.plaintext.slice(0, 15));
    expect(keyMatches(k.plaintext, k.stored)).toBe(true);
  });
  it('differs on every issue and does not match another key', () => {
    const a = issueKey('adm', owner);
    const b = issueKey('adm', owner);
    expect(a.plaintext).not.toBe(b.plaintext);
    expect(keyMatches(a.plaintext, b.stored)).toBe(false);
  });
  it('parses nothing that is not a key', () => {
    for (const s of [
      '',
      'ep_adm_x_y',
      `ep_zzz_${'0'.repeat(32)}_${'a'.repeat(43)}`,
      `ep_adm_${'0'.repeat(32)}_${'a'.repeat(42)}`,
    ]) {
      expect(parseKey(s)).toBeUndefined();
    }
  });
  it('compares secrets of any length', () => {
    expect(secretEquals('abc', 'abc')).toBe(true);
    expect(secretEquals('abc', 'abcd')).toBe(false);
  });
});
