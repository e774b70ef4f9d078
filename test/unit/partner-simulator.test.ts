import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startPartnerSimulator } from '../../src/partner/simulator.ts';

describe('the partner simulator', () => {
  it('keeps the accounts made through it across a restart, passwords hashed, owner-only', async () => {
    const usersFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'sim-')), 'users.json');
    const apiKey = 'sim-key';
    const post = (url: string, what: string, body: object) =>
      fetch(`${url}/${what}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const first = await startPartnerSimulator({ apiKey, usersFile });
    const signup = await post(first.url, 'signup', {
      userName: 'kept@example.com',
      password: 'a password to keep',
      language: 'en',
    });
    expect(signup.status).toBe(201);
    await first.stop();
    const stored = readFileSync(usersFile, 'utf8');
    expect(stored).toContain('kept@example.com');
    expect(stored).not.toContain('a password to keep');
    expect(statSync(usersFile).mode & 0o777).toBe(0o600);

    const second = await startPartnerSimulator({ apiKey, usersFile });
    try {
      const ok = await post(second.url, 'login', {
        userName: 'kept@example.com',
        password: 'a password to keep',
        language: 'en',
      });
      expect(ok.status).toBe(201);
      const wrong = await post(second.url, 'login', {
        userName: 'kept@example.com',
        password: 'another',
        language: 'en',
      });
      expect(wrong.status).toBe(401);
    } finally {
      await second.stop();
    }
  });
});
