import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * HTML forms post url-encoded fields: taken (up to 64 KiB) as an object of strings, in the plugin
 * that serves the forms only.
 */
export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
};

/**
 * Whether a form post comes from another site, by what the browser says of it: an
 * Origin of another host, or Sec-Fetch-Site cross-site / same-site (a sibling
 * subdomain is another site here). A client that sends neither (curl, a script) is
 * judged by the form's tokens alone.
 */
export function fromAnotherSite(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin && (origin === 'null' || hostOf(origin) !== request.headers.host)) return true;
  const site = request.headers['sec-fetch-site'];
  return site !== undefined && site !== 'same-origin' && site !== 'none';
}
