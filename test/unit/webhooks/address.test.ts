import { describe, expect, it } from 'vitest';
import { isPrivateAddress, urlProblem } from '../../../src/webhooks/address.ts';
import { OUTSIDE_LOOK_FORMS, SPECIAL } from '../../helpers/special-addresses.ts';

const strict = { allowHttp: false, allowPrivate: false };
const open = { allowHttp: true, allowPrivate: true };

describe('where webhooks may go', () => {
  it('takes public https URLs', () => {
    expect(urlProblem('https://shop.example/hooks', strict)).toBeUndefined();
    expect(urlProblem('https://93.184.216.34/x', strict)).toBeUndefined();
  });

  it('refuses http unless allowed, and other schemes always', () => {
    expect(urlProblem('http://shop.example/hooks', strict)).toBe('only https URLs');
    expect(urlProblem('http://shop.example/hooks', open)).toBeUndefined();
    expect(urlProblem('ftp://shop.example/hooks', open)).toBe('only http and https URLs');
    expect(urlProblem('not a url', open)).toBe('not a URL');
    expect(urlProblem('https://user:pw@shop.example/', open)).toBe('no credentials in the URL');
  });

  it('refuses loopback and private addresses unless allowed', () => {
    for (const u of [
      'https://127.0.0.1/x',
      'https://localhost:8443/x',
      'https://10.1.2.3/x',
      'https://192.168.0.10/x',
      'https://172.20.0.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://[::ffff:127.0.0.1]/x',
    ])
      expect(urlProblem(u, strict), u).toMatch(/private|loopback/);
    expect(urlProblem('https://127.0.0.1/x', open)).toBeUndefined();
  });

  it('tells private addresses from public ones', () => {
    expect(isPrivateAddress('100.64.1.1')).toBe(true);
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('2606:4700:4700::1111')).toBe(false);
    expect(isPrivateAddress('2001:db8::1')).toBe(true);
    expect(isPrivateAddress('shop.example')).toBe(false);
  });

  it('refuses the forms found in the outside look (issue 21)', () => {
    for (const u of OUTSIDE_LOOK_FORMS)
      expect(urlProblem(u, strict), u).toMatch(/private|loopback/);
  });

  it('refuses every special-purpose block, in any written form', () => {
    for (const a of SPECIAL) {
      expect(isPrivateAddress(a), a).toBe(true);
      const host = a.includes(':') ? `[${a}]` : a;
      expect(urlProblem(`https://${host}/x`, strict), a).toMatch(/private|loopback/);
    }
    // IPv4 written as the URL standard reads it: decimal, octal, hex, short forms
    for (const u of [
      'https://2130706433/',
      'https://0177.0.0.1/',
      'https://0x7f.1/',
      'https://127.1/',
    ])
      expect(urlProblem(u, strict), u).toMatch(/private|loopback/);
    // and still lets ordinary public addresses through
    for (const a of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2a00:1450:4001:82b::200e'])
      expect(isPrivateAddress(a), a).toBe(false);
  });
});
