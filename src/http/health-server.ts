import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '../health/readiness.ts';
import { answerWithProblems } from './problem.ts';
import { systemRoutes } from './routes/system/index.ts';
import { type MetricsRouteOptions, metricsRoute } from './routes/system/metrics.ts';

/**
 * The worker and projector roles serve no API; they answer /livez, /readyz and /metrics
 * on their health port, so an orchestrator can tell whether they work.
 */
export async function startHealthServer(
  readiness: ReadinessCheck[],
  metrics: MetricsRouteOptions,
  log: Logger,
  listen: { port: number; host: string },
): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({
    loggerInstance: log.child({ part: 'health' }) as FastifyBaseLogger,
    // no line per request: orchestrators poll these every few seconds
    logController: new LogController({ disableRequestLogging: true }),
  }).withTypeProvider<ZodTypeProvider>();
  answerWithProblems(app);
  await app.register(systemRoutes, { readiness });
  await app.register(metricsRoute, metrics);
  const url = await app.listen(listen);
  return { url, close: () => app.close() };
}
