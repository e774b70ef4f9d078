import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HttpDeps } from '../../deps.ts';

const tags = ['System'];

export const systemRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags,
        summary: 'Liveness',
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  const readiness = z.object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.record(z.string(), z.object({ ok: z.boolean(), error: z.string().optional() })),
  });
  app.get(
    '/readyz',
    {
      schema: {
        tags,
        summary: 'Readiness: every dependency answers',
        response: { 200: readiness, 503: readiness },
      },
    },
    async (_request, reply) => {
      const results = await Promise.all(
        deps.readiness.map(async (c) => {
          try {
            await withTimeout(c.check(), 2000);
            return [c.name, { ok: true }] as const;
          } catch (err) {
            // the error class only: messages can carry connection strings
            return [
              c.name,
              { ok: false, error: err instanceof Error ? err.name : 'error' },
            ] as const;
          }
        }),
      );
      const ok = results.every(([, r]) => r.ok);
      return reply.status(ok ? 200 : 503).send({
        status: ok ? 'ready' : 'not_ready',
        checks: Object.fromEntries(results),
      });
    },
  );
};

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(
      () => reject(Object.assign(new Error('timeout'), { name: 'Timeout' })),
      ms,
    );
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
