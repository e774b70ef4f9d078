import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { secretEquals } from '../../../domain/shared/keys.ts';
import type { Metrics } from '../../../metrics/metrics.ts';
import { HttpProblem } from '../../problem.ts';
import { problems } from '../../schemas/common.ts';

export interface MetricsRouteOptions {
  metrics: Metrics;
  /** the operator key, which may read in X-Api-Key */
  operatorKey: string;
  /** METRICS_TOKEN, which may read as a bearer token, when set */
  metricsToken?: string | undefined;
  /** more exposition text to append (the Temporal SDK's own metrics) */
  extra?: () => Promise<string>;
}

const first = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h);

/**
 * GET /metrics in Prometheus text format, on the API server and on the health port of
 * the other roles; read with the operator key in X-Api-Key, or METRICS_TOKEN as a bearer
 * token. Each secret opens it only in its own header: the operator key as a bearer token
 * is refused, so a scraper's configuration never holds the key that runs everything.
 */
export const metricsRoute: FastifyPluginAsyncZod<MetricsRouteOptions> = async (app, opts) => {
  app.get(
    '/metrics',
    {
      schema: {
        tags: ['System'],
        summary:
          "Prometheus metrics of this process (and the Temporal SDK's, in a worker): operator key or METRICS_TOKEN as bearer token",
        security: [{ apiKey: [] }, { metricsToken: [] }],
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: z.string() } },
          },
          ...problems(401),
        },
      },
    },
    async (request, reply) => {
      const bearer = /^Bearer\s+(\S+)$/i.exec(first(request.headers.authorization) ?? '')?.[1];
      const apiKey = first(request.headers['x-api-key']);
      if (!bearer && !apiKey)
        throw new HttpProblem(
          401,
          'missing_api_key',
          'send the operator key in X-Api-Key, or the metrics token as Authorization: Bearer',
        );
      const opens =
        (apiKey !== undefined && apiKey.length <= 200 && secretEquals(apiKey, opts.operatorKey)) ||
        (bearer !== undefined &&
          opts.metricsToken !== undefined &&
          bearer.length <= 200 &&
          secretEquals(bearer, opts.metricsToken));
      if (!opens)
        throw new HttpProblem(401, 'unknown_api_key', 'this key does not open the metrics');
      const text = await opts.metrics.text(opts.extra ? await opts.extra() : '');
      return reply.type('text/plain; version=0.0.4; charset=utf-8').send(text);
    },
  );
};

/** Times every request by its route pattern (never the path: ids would be labels). */
export function observeRequests(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpDuration.observe(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unrouted',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
}
