import { describe, expect, it } from 'vitest';
import { isPrivateAddress, urlProblem } from '../../../src/webhooks/address.ts';

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
    expect(isPrivateAddress('2001:db8::1')).toBe(false);
    expect(isPrivateAddress('shop.example')).toBe(false);
  });
});
