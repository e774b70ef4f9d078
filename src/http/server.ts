import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { resolveApiKey } from '../app/auth.ts';
import { authPlugin } from './auth.ts';
import type { HttpDeps } from './deps.ts';
import { doorPlugin } from './door.ts';
import {
  answerUnrouted,
  clientErrorHandler,
  frameworkErrors,
  MAX_PARAM_LENGTH,
  methodsByPath,
  notFoundOrNotAllowed,
  refuseMalformedQuery,
} from './edge.ts';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.ts';
import { ONE_MIB } from './limits.ts';
import { finishDocument } from './openapi/document.ts';
import { webhooksSection } from './openapi/webhooks.ts';
import { answerWithProblems, HttpProblem } from './problem.ts';
import { requestLogger } from './request-logger.ts';
import { approvalDecisionRoutes } from './routes/admin/approvals.ts';
import { adminApi } from './routes/admin/index.ts';
import { auditRoutes } from './routes/audit.ts';
import { datasetRoutes } from './routes/datasets/index.ts';
import { recordRoutes } from './routes/datasets/records.ts';
import { editorAuthRoutes } from './routes/editor/auth.ts';
import { editorProjectRoutes } from './routes/editor/projects.ts';
import { eventFeedRoutes } from './routes/events.ts';
import { fulfillmentApi } from './routes/fulfillment/index.ts';
import { integratorApi } from './routes/integrator/index.ts';
import { operatorApi } from './routes/operator/index.ts';
import { opsSite } from './routes/ops/index.ts';
import { packingSlipRoutes } from './routes/orders/packing-slip.ts';
import { proofSite } from './routes/proofs/site.ts';
import { systemRoutes } from './routes/system/index.ts';
import { metricsRoute, observeRequests } from './routes/system/metrics.ts';
import { addCommonProblems } from './schemas/common.ts';
import { refuseBadText } from './text-guard.ts';
import { requestSpans } from './tracing.ts';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildHttpServer(deps: HttpDeps, logger: Logger): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: ONE_MIB,
    // a client's x-request-id is echoed only when it is a plain token (no log injection)
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { removeAdditional: false } },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    childLoggerFactory: requestLogger,
    // what the router and Node's parser refuse is answered as problem details too
    frameworkErrors,
    clientErrorHandler,
    // fastify takes a hop count too, though its types leave numbers out
    trustProxy: deps.config.trustProxy as boolean | string[],
  }).withTypeProvider<ZodTypeProvider>();

  // a span per request, continuing a caller's traceparent, before any other hook
  if (deps.config.tracing.endpoint) await app.register(requestSpans().plugin());

  // before any route is added: each gets its cost class as it is
  await app.register(doorPlugin, { door: deps.door });

  const allowed = methodsByPath(app);
  answerWithProblems(app, notFoundOrNotAllowed(allowed));
  app.addHook('onRequest', answerUnrouted(allowed));
  app.addHook('onRoute', addCommonProblems);

  // JSON only; an empty body on a route without one is fine (a PUT that only rotates a key).
  app.removeAllContentTypeParsers();
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '' || body === undefined) return done(null, undefined);
    // before anything walks it: a body nested thousands deep would overflow recursive code
    if (nestsDeeperThan(body as string))
      return done(
        new HttpProblem(
          400,
          'too_deep',
          `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`,
        ),
      );
    return json(req, body as string, done);
  });

  // text the stores cannot hold is refused before any route code sees it
  app.addHook('onRequest', refuseMalformedQuery);
  app.addHook('preValidation', refuseBadText);

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  observeRequests(app, deps.metrics.metrics);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Editor platform API',
        version: '1.0.0',
        description: 'Administrator, shop integrator, order fulfillment, operator and editor APIs.',
      },
      tags: [
        { name: 'Operator API', description: 'the operator key: labels, catalogue, every order' },
        {
          name: 'Administrator API',
          description: "a label's admin key: its shops, orders and settings",
        },
        {
          name: 'Shop integrator API',
          description: 'a shop integration key: sales and the catalogue',
        },
        {
          name: 'Order fulfillment API',
          description: "a label's fulfillment key, and the print partner's key",
        },
        {
          name: 'Editor',
          description: "the editor's front end: sessions through the partner, projects",
        },
        {
          name: 'Audit',
          description:
            "the audit log: its Merkle tree's signed heads and proofs (RFC 9162), any key of a label",
        },
        { name: 'System', description: 'health and metrics' },
        { name: 'Webhooks', description: 'what the service POSTs to a shop’s webhook' },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          editorToken: { type: 'http', scheme: 'bearer' },
          metricsToken: { type: 'http', scheme: 'bearer' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (document) =>
      finishDocument(jsonSchemaTransformObject(document), { webhooks: webhooksSection() }),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(authPlugin, {
    resolve: (presented) =>
      resolveApiKey(deps.app.store, deps.config.operatorApiKey, presented, deps.principals),
  });
  await app.register(systemRoutes, { readiness: deps.readiness });
  await app.register(metricsRoute, deps.metrics);
  await app.register(operatorApi, { deps, prefix: '/operator' });
  await app.register(opsSite, { deps });
  await app.register(adminApi, { deps, prefix: '/api' });
  await app.register(packingSlipRoutes, { deps, prefix: '/api' });
  await app.register(approvalDecisionRoutes, { deps, prefix: '/api' });
  await app.register(datasetRoutes, { deps, prefix: '/api' });
  await app.register(recordRoutes, { deps, prefix: '/api' });
  await app.register(proofSite, { deps });
  await app.register(integratorApi, { deps });
  await app.register(eventFeedRoutes, { deps, prefix: '/api' });
  await app.register(auditRoutes, { deps, prefix: '/api' });
  await app.register(fulfillmentApi, { deps, prefix: '/v1' });
  await app.register(editorProjectRoutes, { deps, prefix: '/editor' });
  await app.register(editorAuthRoutes, { deps, prefix: '/editor' });
  return app;
}
