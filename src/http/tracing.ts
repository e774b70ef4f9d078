import { FastifyOtelInstrumentation } from '@fastify/otel';

/**
 * Request spans (fastify's own OpenTelemetry plugin): one per request, a child of the
 * caller's `traceparent` when it sends one, named by method and route. The path is the
 * route's pattern, never the request's (a signed link or a query could name a secret),
 * and no hook gets a span of its own: the spans inside are the service's steps.
 */
export const requestSpans = () =>
  new FastifyOtelInstrumentation({
    instrumentHooks: false,
    requestHook(span, request) {
      const route = request.routeOptions.url ?? 'unrouted';
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('url.path', route);
    },
  });
