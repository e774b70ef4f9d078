import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { evaluate, type ReadinessCheck } from '../../../health/readiness.ts';
import { problemSchema, toProblem } from '../../problem.ts';

const tags = ['System'];

const checks = z
  .record(
    z.string(),
    z
      .object({ ok: z.boolean(), error: z.string().optional() })
      .meta({ id: 'Check', description: 'a dependency or duty of the role, and why it fails' }),
  )
  .describe(
    'each check by name: database, eventStore, storage, temporal, worker, projections, ...',
  );
const readiness = z.object({ status: z.literal('ready'), checks }).meta({ id: 'Ready' });
/** Not ready: problem details like every error, with each check's result beside them. */
const notReady = problemSchema.extend({ checks }).meta({ id: 'NotReady' });

/** Liveness and readiness: on the API server, and on the health port of the other roles. */
export const systemRoutes: FastifyPluginAsyncZod<{ readiness: ReadinessCheck[] }> = async (
  app,
  { readiness: readinessChecks },
) => {
  const alive = {
    schema: {
      tags,
      summary: 'Liveness: the process runs and answers',
      response: { 200: z.object({ status: z.literal('ok') }).meta({ id: 'Alive' }) },
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
        response: {
          200: readiness,
          503: {
            description: 'Not ready: the checks that failed say why',
            content: { 'application/problem+json': { schema: notReady } },
          },
        },
      },
    },
    async (_request, reply) => {
      const r = await evaluate(readinessChecks);
      if (r.ready) return { status: 'ready' as const, checks: r.checks };
      const failed = Object.entries(r.checks)
        .filter(([, c]) => !c.ok)
        .map(([name, c]) => `${name}: ${c.error ?? 'failed'}`);
      reply.header('retry-after', '5');
      return reply
        .status(503)
        .type('application/problem+json')
        .send({
          ...toProblem(503, 'not_ready', `not ready: ${failed.join('; ')}`),
          checks: r.checks,
        });
    },
  );
};
