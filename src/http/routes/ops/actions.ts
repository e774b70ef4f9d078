import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { waiveApproval } from '../../../app/approvals.ts';
import { endOpsSession } from '../../../app/ops-sessions.ts';
import { cancelOrder, retryOrder } from '../../../app/order-operations.ts';
import { changeBarcode, requestReplay } from '../../../app/orders.ts';
import { holdOrder, releaseHold, requestReprint } from '../../../app/production.ts';
import { retryParked } from '../../../app/subscriptions.ts';
import { barcodeInputSchema } from '../../../domain/order/barcode.ts';
import { REPRINT_REASONS } from '../../../domain/order/events.ts';
import { DomainError } from '../../../domain/shared/decider.ts';
import { metadataOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { formField, labelScope, sessionOf } from './context.ts';
import { orderParams } from './pages.ts';
import { href } from './views/html.ts';
import { orderPath } from './views/orders.ts';

const csrf = { _csrf: z.string().max(200).optional() };
const form = <S extends z.ZodRawShape>(shape: S) => z.object({ ...csrf, ...shape }).strict();

/**
 * Runs an action and goes back to the page it came from (post, redirect, get), saying
 * how it went. What the order's rules refuse (nothing to retry, cancelled) is said on the
 * page; an order that is not the viewer's stays a 404.
 */
async function act(
  reply: FastifyReply,
  back: string,
  done: string,
  work: () => Promise<unknown>,
): Promise<FastifyReply> {
  try {
    await work();
    return reply.redirect(href(back, { done }), 303);
  } catch (err) {
    if (err instanceof DomainError && err.kind !== 'not_found')
      return reply.redirect(href(back, { error: err.code }), 303);
    throw err;
  }
}

/** The ops site's actions: each a form post with the session's CSRF token. */
export const opsActions: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const orderAction = (
    action: string,
    done: string,
    run: (
      labelId: string,
      orderId: string,
      body: Record<string, unknown>,
      meta: ReturnType<typeof metadataOf>,
    ) => Promise<unknown>,
    body: z.ZodType<Record<string, unknown>> = form({}),
  ) =>
    app.post(
      `/ops/labels/:labelId/orders/:orderId/${action}`,
      { schema: { hide: true, params: orderParams, body } },
      async (request, reply) => {
        const labelId = labelScope(sessionOf(request), request.params.labelId);
        const { orderId } = request.params;
        return act(reply, orderPath(labelId, orderId), done, () =>
          run(labelId, orderId, request.body, metadataOf(request)),
        );
      },
    );

  orderAction('retry', 'retried', (labelId, orderId, _body, meta) =>
    retryOrder(deps.app, labelId, orderId, meta),
  );
  orderAction(
    'cancel',
    'cancelled',
    (labelId, orderId, body, meta) =>
      cancelOrder(deps.app, labelId, orderId, body.reason as string | undefined, meta),
    form({ reason: formField(z.string().trim().max(500)) }),
  );
  orderAction('replay', 'replay_requested', (labelId, orderId, _body, meta) =>
    requestReplay(deps.app, labelId, orderId, meta),
  );

  orderAction(
    'hold',
    'held',
    (labelId, orderId, body, meta) =>
      holdOrder(deps.app, { labelId }, orderId, body.reason as string, undefined, meta),
    form({ reason: z.string().trim().min(1).max(500) }),
  );

  app.post(
    '/ops/labels/:labelId/orders/:orderId/holds/:holdId/release',
    {
      schema: {
        hide: true,
        params: orderParams.extend({ holdId: z.uuid() }).strict(),
        body: form({}),
      },
    },
    async (request, reply) => {
      const labelId = labelScope(sessionOf(request), request.params.labelId);
      const { orderId, holdId } = request.params;
      return act(reply, orderPath(labelId, orderId), 'released', () =>
        releaseHold(deps.app, { labelId }, orderId, holdId, metadataOf(request)),
      );
    },
  );

  app.post(
    '/ops/labels/:labelId/items/:orderItemId/reprint',
    {
      schema: {
        hide: true,
        params: z.object({ labelId: z.uuid(), orderItemId: z.uuid() }).strict(),
        body: form({
          orderId: orderParams.shape.orderId,
          reason: z.enum(REPRINT_REASONS),
          note: formField(z.string().trim().max(500)),
        }),
      },
    },
    async (request, reply) => {
      const labelId = labelScope(sessionOf(request), request.params.labelId);
      const { orderId, reason, note } = request.body;
      return act(reply, orderPath(labelId, orderId), 'reprint_requested', () =>
        requestReprint(
          deps.app,
          { labelId },
          request.params.orderItemId,
          { reason, note: note || undefined },
          metadataOf(request),
        ),
      );
    },
  );

  app.post(
    '/ops/labels/:labelId/items/:orderItemId/waive-approval',
    {
      schema: {
        hide: true,
        params: z.object({ labelId: z.uuid(), orderItemId: z.uuid() }).strict(),
        body: form({
          orderId: orderParams.shape.orderId,
          reason: z.string().trim().min(1).max(500),
        }),
      },
    },
    async (request, reply) => {
      const labelId = labelScope(sessionOf(request), request.params.labelId);
      const { orderId, reason } = request.body;
      return act(reply, orderPath(labelId, orderId), 'approval_waived', () =>
        waiveApproval(deps.app, labelId, request.params.orderItemId, reason, metadataOf(request)),
      );
    },
  );

  app.post(
    '/ops/labels/:labelId/items/:orderItemId/barcode',
    {
      schema: {
        hide: true,
        params: z.object({ labelId: z.uuid(), orderItemId: z.uuid() }).strict(),
        body: form({
          orderId: orderParams.shape.orderId,
          format: z.string().max(20),
          value: z.string().max(500),
        }),
      },
    },
    async (request, reply) => {
      const labelId = labelScope(sessionOf(request), request.params.labelId);
      const { orderId, format, value } = request.body;
      return act(reply, orderPath(labelId, orderId), 'barcode_set', async () => {
        const barcode = barcodeInputSchema.safeParse({ format, value });
        if (!barcode.success) throw new DomainError('invalid', 'invalid barcode', 'invalid');
        return changeBarcode(
          deps.app,
          labelId,
          request.params.orderItemId,
          barcode.data,
          metadataOf(request),
        );
      });
    },
  );

  app.post(
    '/ops/sessions/:sessionId/end',
    { schema: { hide: true, params: z.object({ sessionId: z.uuid() }).strict(), body: form({}) } },
    async (request, reply) => {
      const session = sessionOf(request);
      const { sessionId } = request.params;
      return act(reply, '/ops/sessions', 'session_ended', () =>
        endOpsSession(deps.app, session.viewer, sessionId, 'ended_by_viewer', metadataOf(request)),
      );
    },
  );

  app.post(
    '/ops/projections/:name/retry',
    {
      schema: {
        hide: true,
        params: z.object({ name: z.string().min(1).max(100) }).strict(),
        body: form({ eventId: formField(z.uuid()) }),
      },
    },
    async (request, reply) => {
      if (sessionOf(request).viewer.kind !== 'operator')
        throw new DomainError('not_found', 'no such page', 'page_not_found');
      return act(reply, '/ops/projections', 'parked_retried', () =>
        retryParked(deps.runners, request.params.name, request.body.eventId),
      );
    },
  );
};
