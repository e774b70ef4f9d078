import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { evaluate, type ReadinessCheck } from '../../../health/readiness.ts';

const tags = ['System'];

const readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), error: z.string().optional() })),
});

/** Liveness and readiness: on the API server, and on the health port of the other roles. */
export const systemRoutes: FastifyPluginAsyncZod<{ readiness: ReadinessCheck[] }> = async (
  app,
  { readiness: checks },
) => {
  const alive = {
    schema: {
      tags,
      summary: 'Liveness: the process runs and answers',
      response: { 200: z.object({ status: z.literal('ok') }) },
    },
  };
  app.get('/livez', alive, async () => ({ status: 'ok' as const }));
  app.get('/healthz', { ...alive, schema: { ...alive.schema, hide: true } }, async () => ({
    status: 'ok' as const,
  }));

  app.get(
    '/readyz',
    {
      schema: {
        tags,
        summary:
          "Readiness: every dependency of this process's role answers, projections and reactors keep up, a worker polls",
        response: { 200: readiness, 503: readiness },
      },
    },
    async (_request, reply) => {
      const r = await evaluate(checks);
      if (!r.ready) reply.header('retry-after', '5');
      return reply.status(r.ready ? 200 : 503).send({
        status: r.ready ? 'ready' : 'not_ready',
        checks: r.checks,
      });
    },
  );
};
