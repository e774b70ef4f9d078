import { describe, expect, it } from 'vitest';
import { createLogger, withoutBearerTokens } from '../../src/app/logger.ts';

describe('what a log line may hold of a URL', () => {
  it('replaces the token of a proof link and drops query strings', () => {
    expect(withoutBearerTokens('/proofs/p1.eyJhIjoxfQ.c2ln')).toBe('/proofs/[redacted]');
    expect(withoutBearerTokens('/proofs/p1.x.y/pages/2')).toBe('/proofs/[redacted]/pages/2');
    expect(withoutBearerTokens('/proofs/p1.x.y?version=2')).toBe('/proofs/[redacted]?[query]');
    expect(withoutBearerTokens('/api/orders/A-1')).toBe('/api/orders/A-1');
    expect(withoutBearerTokens('/api/orders?status=failed')).toBe('/api/orders?[query]');
  });

  it("is how the service's logger writes a request", () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    log.info(
      { req: { method: 'GET', url: '/proofs/p1.body.signature', headers: {} } },
      'incoming request',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('signature');
    expect(JSON.parse(lines[0]!).req).toMatchObject({ method: 'GET', url: '/proofs/[redacted]' });
  });
});
