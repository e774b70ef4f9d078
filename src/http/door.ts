import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { type CostClass, type LabelDoor, OverShare } from '../shares/door.ts';
import { abortedWith } from './answer-waits.ts';
import { labelIdOf } from './auth.ts';
import { ONE_MIB } from './limits.ts';
import { sendProblem, toProblem } from './problem.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Gives the request's place at the door back before it is answered: a request that
     * goes on to wait for a change (`Prefer: wait`) costs its label nothing meanwhile.
     */
    leaveDoor: () => void;
    /**
     * The label a request with neither key nor session is charged to, set by its routes'
     * own onRequest hook: an approver's proof link names its label.
     */
    chargedTo?: string;
  }
  interface FastifyContextConfig {
    /** what the route costs its label (set for every route by the door's onRoute hook) */
    costClass?: CostClass;
  }
}

/**
 * The routes that are not what their method says (a GET a cheap read, anything else a
 * write), by method and path as the OpenAPI document writes them. A route taking a body
 * over 1 MiB must be here as an upload: the door refuses to start otherwise.
 */
export const COSTS: Record<string, CostClass> = {
  // answers that grow with what the label holds
  'GET /api/orders': 'heavy_read',
  'GET /api/orders/{orderId}/history': 'heavy_read',
  'GET /api/orders/{orderId}/audit-bundle': 'heavy_read',
  'GET /api/audit/inclusion': 'heavy_read',
  'GET /api/audit/consistency': 'heavy_read',
  'GET /api/events': 'heavy_read',
  'GET /api/deadlines': 'heavy_read',
  'GET /api/images': 'heavy_read',
  'GET /api/facilities': 'heavy_read',
  'GET /api/shop-integration/{id}/webhook/deliveries': 'heavy_read',
  'GET /api/partner/user/products': 'heavy_read',
  'GET /api/orderitem/{id}/printfile': 'heavy_read',
  'GET /api/orderitems/{orderItemId}/records/{record}/pdf': 'heavy_read',
  'GET /v1/production/batches': 'heavy_read',
  'GET /v1/production/batches/{batchId}/sheets/{n}': 'heavy_read',
  'GET /v1/production/batches/{batchId}/ticket.xjdf': 'heavy_read',
  'GET /v1/production/batches/{batchId}/job-sheet': 'heavy_read',
  // a press run's request reads every order it names
  'POST /v1/production/batches': 'heavy_read',
  // drawn in an image process while the client waits
  'GET /api/orders/{orderId}/packing-slip': 'drawing',
  'GET /api/orderitem/{id}/preview': 'drawing',
  'GET /api/orderitems/{orderItemId}/records/{record}/preview': 'drawing',
  'GET /api/orderitem/{orderItemId}/proofs/{version}/pages/{page}': 'drawing',
  'POST /api/projects/{id}/mockups': 'drawing',
  'POST /editor/projects/{id}/mockups': 'drawing',
  // the approvers' pages (charged to the label their link names) and the ops pages
  'GET /proofs/{token}': 'heavy_read',
  'GET /proofs/{token}/pages/{page}': 'drawing',
  'GET /proofs/{token}/mockups/{sha256}': 'drawing',
  'GET /ops': 'heavy_read',
  'GET /ops/orders': 'heavy_read',
  'GET /ops/production': 'heavy_read',
  'GET /ops/approvals': 'heavy_read',
  'GET /ops/batches': 'heavy_read',
  'GET /ops/sessions': 'heavy_read',
  'GET /ops/labels/{labelId}/orders/{orderId}': 'heavy_read',
  'GET /ops/labels/{labelId}/batches/{batchId}': 'heavy_read',
  'GET /ops/labels/{labelId}/items/{orderItemId}/proofs/{version}/pages/{page}': 'drawing',
  'GET /ops/labels/{labelId}/batches/{batchId}/sheets/{n}/preview': 'drawing',
  'GET /ops/labels/{labelId}/items/{orderItemId}/mockups/{sha256}': 'drawing',
  'GET /ops/labels/{labelId}/items/{orderItemId}/preview/{sha256}/{page}': 'drawing',
  'GET /ops/labels/{labelId}/items/{orderItemId}/records/{record}': 'drawing',
  'GET /ops/labels/{labelId}/items/{orderItemId}/printfile/{sha256}': 'heavy_read',
  // bodies over 1 MiB, or streamed to disk
  'POST /api/images': 'upload',
  'POST /api/datasets': 'upload',
  'PUT /api/branding/logo': 'upload',
  'POST /api/price/import': 'upload',
  'PUT /api/mockup-templates/{templateId}': 'upload',
  'POST /v1/api/printshop/sku': 'upload',
  'PUT /v1/api/printshop/sku': 'upload',
  'POST /editor/projects': 'upload',
  'PUT /editor/projects/{id}': 'upload',
  'PUT /api/print-settings/output-profile': 'upload',
  // the operator's are not charged (no label), but are uploads all the same
  'PUT /operator/labels/{labelId}/print-settings/output-profile': 'upload',
  'POST /operator/catalog/{supplier}': 'upload',
};

/** A route's path as the OpenAPI document writes it (`:id` as `{id}`). */
const documented = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** What a route costs its label: its entry in COSTS, else what its method says. */
export function costClassOf(method: string, url: string): CostClass {
  return COSTS[`${method} ${documented(url)}`] ?? (method === 'GET' ? 'read' : 'write');
}

/**
 * Paths no label's key or session opens (the operator's, the print partner's, health): never
 * charged.
 */
const UNCHARGED = /^\/(operator|metrics|livez|readyz|healthz|v1\/api\/printshop)(\/|$)/;

/**
 * Whether the door may refuse a route's requests (429 over_share): it takes a label's key or
 * session.
 */
export const mayBeCharged = (url: string, security: unknown[] | undefined): boolean =>
  (security?.length ?? 0) > 0 && !UNCHARGED.test(url);

/**
 * The label a request is charged to: its key's, its editor or ops session's, or the one
 * its proof link names; none for the operator and anonymous ones.
 */
function labelOf(request: FastifyRequest): string {
  return request.editorSession?.labelId ?? request.chargedTo ?? labelIdOf(request);
}

/**
 * The door as a plugin: every route gets its cost class when it is added, and every
 * request with a label is charged to it once its key is known (after every onRequest
 * hook, so after authentication) and before its body is read. The place is given back
 * when the answer's connection closes, answered or not.
 */
export const doorPlugin = fp<{ door: LabelDoor }>(async (app: FastifyInstance, { door }) => {
  app.decorateRequest('leaveDoor', () => {});
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(
      (m) => m !== 'HEAD',
    );
    const classes = new Set(methods.map((m) => costClassOf(m, route.url)));
    const costClass = classes.size === 1 ? [...classes][0] : 'write';
    if ((route.bodyLimit ?? 0) > ONE_MIB && costClass !== 'upload')
      throw new Error(
        `${methods.join(',')} ${route.url} takes bodies over 1 MiB: name it an upload in COSTS`,
      );
    route.config = { ...(route.config ?? {}), costClass };
  });
  app.addHook('preParsing', async (request, reply, payload) => {
    const labelId = labelOf(request);
    const costClass = request.routeOptions.config?.costClass;
    if (!labelId || !costClass) return payload;
    // the connection's close (answered, or the client gone) gives the place back
    const closed = abortedWith(reply);
    try {
      const leave = await door.enter(labelId, costClass, closed);
      request.leaveDoor = leave;
      if (closed.aborted) leave();
      else closed.addEventListener('abort', leave, { once: true });
    } catch (err) {
      if (closed.aborted) {
        // gone while waiting: nobody to answer
        reply.hijack();
        return reply;
      }
      if (!(err instanceof OverShare)) throw err;
      request.log.info({ status: 429, costClass }, 'over its share');
      reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      sendProblem(reply, {
        ...toProblem(429, 'over_share', `${err.message}; send it again after Retry-After`),
        costClass,
      });
      return reply;
    }
    return payload;
  });
});

/** What a refused request is told to wait: about one request's time at the back of a line. */
const RETRY_AFTER_SECONDS = 2;
