import type { FastifyInstance } from 'fastify';

/** HTML forms post url-encoded fields: taken (up to 64 KiB) as an object of strings, in the plugin that serves the forms only. */
export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
}
