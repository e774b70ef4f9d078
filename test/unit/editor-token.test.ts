import { describe, expect, it } from 'vitest';
import { issueEditorToken, verifyEditorToken } from '../../src/app/editor-token.ts';

const secret = 's'.repeat(40);
const label = '22222222-2222-4222-8222-222222222222';
const user = '33333333-3333-4333-8333-333333333333';

describe('editor tokens', () => {
  it('carry label, user and expiry', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const s = verifyEditorToken(secret, issueEditorToken(secret, label, user, now), now);
    expect(s).toEqual({
      labelId: label,
      userRef: user,
      expiresAt: new Date('2026-01-01T08:00:00Z'),
    });
  });
  it('are refused when expired, forged, altered or malformed', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const token = issueEditorToken(secret, label, user, now);
    expect(verifyEditorToken(secret, token, new Date('2026-01-01T08:00:00Z'))).toBeUndefined();
    expect(verifyEditorToken('t'.repeat(40), token, now)).toBeUndefined();
    const [v, body, sig] = token.split('.');
    const other = Buffer.from(JSON.stringify({ l: label, u: label, e: 9_999_999_999 })).toString(
      'base64url',
    );
    expect(verifyEditorToken(secret, `${v}.${other}.${sig}`, now)).toBeUndefined();
    expect(verifyEditorToken(secret, `${v}.${body}`, now)).toBeUndefined();
    expect(verifyEditorToken(secret, 'garbage', now)).toBeUndefined();
  });
});
