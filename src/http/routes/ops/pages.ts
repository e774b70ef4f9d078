import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { awaitingApproval } from '#projections/order-approvals';
import { ORDER_STATUSES } from '#projections/orders';
import { proofPage } from '../../../app/approvals.ts';
import { batchFile, batchOf, batchView, opsBatches, sheetPreview } from '../../../app/batches.ts';
import { listFacilities } from '../../../app/facilities.ts';
import { labelList } from '../../../app/labels.ts';
import { orderItemMockupImage } from '../../../app/mockups.ts';
import { operationsOverview } from '../../../app/operations.ts';
import { opsSessionsOf } from '../../../app/ops-sessions.ts';
import { MAX_PAGE, orderPage, shopFloorBoard } from '../../../app/order-lists.ts';
import { orderHistory, orderView } from '../../../app/orders.ts';
import { printFilePreview } from '../../../app/previews.ts';
import { printFileDownload } from '../../../app/print-file-downloads.ts';
import { recordOf } from '../../../app/records.ts';
import { listShopIntegrations } from '../../../app/shop-integrations.ts';
import { subscriptionStatus } from '../../../app/subscriptions.ts';
import { orderIdSchema, PRODUCTION_STAGES } from '../../../domain/order/events.ts';
import { DomainError } from '../../../domain/shared/decider.ts';
import { workflowIds } from '../../../temporal/contract.ts';
import type { HttpDeps } from '../../deps.ts';
import { sendImage } from '../../image-reply.ts';
import { sendPrintFile } from '../../print-file-reply.ts';
import { toOrderPage } from '../../schemas/order-list.ts';
import {
  formField,
  labelScope,
  noticeFields,
  noticeOf,
  pageContext,
  sessionOf,
} from './context.ts';
import { approvalsPage } from './views/approvals.ts';
import { batchesPage, batchPage } from './views/batches.ts';
import { historyNames } from './views/history.ts';
import { orderDetailPage } from './views/order.ts';
import { ordersPage } from './views/orders.ts';
import { overviewPage } from './views/overview.ts';
import { productionPage } from './views/production.ts';
import { projectionsPage } from './views/projections.ts';
import { sessionsPage } from './views/sessions.ts';

const uuid = z.uuid({ message: 'must be a UUID' });
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits');
export const orderParams = z.object({ labelId: uuid, orderId: orderIdSchema }).strict();
const fileParams = z.object({ labelId: uuid, orderItemId: uuid, sha256 }).strict();

/** A time typed into the filter form, or undefined with the reason when it is not one. */
function instant(text: string | undefined): { at?: Date; error?: string } {
  if (text === undefined) return {};
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? { error: 'invalid' } : { at };
}

/** The pages of the ops site that read: overview, orders, an order, projections. */
export const opsReadPages: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const temporal = { uiUrl: deps.temporalUiUrl, namespace: deps.config.temporal.namespace };
  const adminLabel = (session: ReturnType<typeof sessionOf>) =>
    session.viewer.kind === 'admin' ? session.viewer.labelId : undefined;

  app.get(
    '/ops',
    { schema: { hide: true, querystring: z.object(noticeFields).strict() } },
    async (request, reply) => {
      const session = sessionOf(request);
      const overview = await operationsOverview(deps.app, {
        labelId: adminLabel(session),
        // a label admin sees the lag and parked counts, never other labels' events
        runners: deps.runners,
        pollers: deps.pollers,
      });
      if (session.viewer.kind === 'admin')
        for (const s of overview.subscriptions) s.parkedEvents = [];
      const ctx = await pageContext(deps, session, 'overview');
      return reply
        .type('text/html; charset=utf-8')
        .send(overviewPage(ctx, overview, noticeOf(request.query)));
    },
  );

  app.get(
    '/ops/production',
    {
      schema: {
        hide: true,
        querystring: z.object({ ...noticeFields, facility: formField(uuid) }).strict(),
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const labelId = adminLabel(session);
      // a label's viewer may look at one of its facilities' floor
      const facilities = labelId ? await listFacilities(deps.app, labelId) : [];
      const facility = facilities.find((f) => f.facility_id === request.query.facility);
      const facilityId = facility?.facility_id;
      const [board, late] = await Promise.all([
        shopFloorBoard(deps.app, labelId, facilityId),
        orderPage(deps.app, { labelId, late: true, limit: 50, facilityId }),
      ]);
      const ctx = await pageContext(deps, session, 'production');
      return reply.type('text/html; charset=utf-8').send(
        productionPage(
          ctx,
          board,
          toOrderPage(late, '/ops/orders', { late: 'true' }).orders,
          noticeOf(request.query),
          {
            all: facilities.map((f) => ({
              id: f.facility_id,
              name: f.settings.name,
              paused: f.paused,
            })),
            shown: facilityId,
          },
        ),
      );
    },
  );

  app.get(
    '/ops/approvals',
    { schema: { hide: true, querystring: z.object(noticeFields).strict() } },
    async (request, reply) => {
      const session = sessionOf(request);
      const rows = await awaitingApproval(deps.app.pool, adminLabel(session), 200);
      const ctx = await pageContext(deps, session, 'approvals');
      return reply
        .type('text/html; charset=utf-8')
        .send(approvalsPage(ctx, rows, noticeOf(request.query)));
    },
  );

  app.get(
    '/ops/labels/:labelId/items/:orderItemId/proofs/:version/pages/:page',
    {
      schema: {
        hide: true,
        params: z
          .object({
            labelId: uuid,
            orderItemId: uuid,
            version: z.coerce.number().int().min(1).max(100_000),
            page: z.coerce.number().int().min(1).max(10_000),
          })
          .strict(),
      },
    },
    async (request, reply) => {
      const { labelId, orderItemId, version, page } = request.params;
      const png = await proofPage(
        deps.app,
        labelScope(sessionOf(request), labelId),
        orderItemId,
        version,
        page,
      );
      return sendImage(reply, 'image/png', png);
    },
  );

  app.get(
    '/ops/batches',
    { schema: { hide: true, querystring: z.object(noticeFields).strict() } },
    async (request, reply) => {
      const session = sessionOf(request);
      const rows = await opsBatches(deps.app, adminLabel(session));
      const ctx = await pageContext(deps, session, 'batches');
      return reply
        .type('text/html; charset=utf-8')
        .send(batchesPage(ctx, rows, noticeOf(request.query)));
    },
  );

  const batchParams = z.object({ labelId: z.uuid(), batchId: z.uuid() }).strict();
  app.get(
    '/ops/labels/:labelId/batches/:batchId',
    { schema: { hide: true, params: batchParams, querystring: z.object(noticeFields).strict() } },
    async (request, reply) => {
      const session = sessionOf(request);
      const labelId = labelScope(session, request.params.labelId);
      const b = await batchOf(deps.app, labelId, request.params.batchId);
      const ctx = await pageContext(deps, session, 'batches');
      return reply
        .type('text/html; charset=utf-8')
        .send(batchPage(ctx, labelId, batchView(b), noticeOf(request.query)));
    },
  );

  const sheetParams = batchParams.extend({ n: z.coerce.number().int().min(1).max(9999) }).strict();
  app.get(
    '/ops/labels/:labelId/batches/:batchId/sheets/:n/preview',
    { schema: { hide: true, params: sheetParams } },
    async (request, reply) => {
      const { labelId, batchId, n } = request.params;
      const png = await sheetPreview(deps.app, labelScope(sessionOf(request), labelId), batchId, n);
      return sendImage(reply, 'image/png', png);
    },
  );

  const batchFileRoute = (
    path: string,
    which: (p: { n?: number }) => Parameters<typeof batchFile>[3],
    type: string,
  ) =>
    app.get(
      path,
      { schema: { hide: true, params: path.includes(':n') ? sheetParams : batchParams } },
      async (request, reply) => {
        const p = request.params as { labelId: string; batchId: string; n?: number };
        const file = await batchFile(
          deps.app,
          labelScope(sessionOf(request), p.labelId),
          p.batchId,
          which(p),
        );
        return reply
          .type(type)
          .header('content-length', file.size)
          .header('etag', `"${file.sha256}"`)
          .header('cache-control', 'private, max-age=31536000, immutable')
          .send(file.body);
      },
    );
  batchFileRoute(
    '/ops/labels/:labelId/batches/:batchId/sheets/:n',
    (p) => ({ sheet: p.n! }),
    'application/pdf',
  );
  batchFileRoute(
    '/ops/labels/:labelId/batches/:batchId/job-sheet',
    () => 'job-sheet',
    'application/pdf',
  );
  batchFileRoute(
    '/ops/labels/:labelId/batches/:batchId/ticket.xjdf',
    () => 'ticket',
    'application/vnd.cip4-xjdf+xml',
  );

  app.get(
    '/ops/sessions',
    { schema: { hide: true, querystring: z.object(noticeFields).strict() } },
    async (request, reply) => {
      const session = sessionOf(request);
      const rows = await opsSessionsOf(deps.app, session.viewer);
      const ctx = await pageContext(deps, session, 'sessions');
      return reply
        .type('text/html; charset=utf-8')
        .send(sessionsPage(ctx, rows, noticeOf(request.query)));
    },
  );

  app.get(
    '/ops/orders',
    {
      schema: {
        hide: true,
        querystring: z
          .object({
            status: formField(z.enum([...ORDER_STATUSES, 'overdue'])),
            stage: formField(z.enum([...PRODUCTION_STAGES, 'on_hold'])),
            late: formField(z.enum(['true'])),
            labelId: formField(uuid),
            q: formField(z.string().max(128)),
            since: formField(z.string().max(64)),
            until: formField(z.string().max(64)),
            cursor: formField(z.string().max(600)),
            limit: formField(z.coerce.number().int().min(1).max(MAX_PAGE)),
            ...noticeFields,
          })
          .strict(),
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const { done, error, ...filter } = request.query;
      const since = instant(filter.since);
      const until = instant(filter.until);
      const labelId = adminLabel(session) ?? filter.labelId;
      const page = await orderPage(deps.app, {
        labelId,
        status: filter.status,
        stage: filter.stage,
        late: filter.late === 'true',
        q: filter.q,
        since: since.at,
        until: until.at,
        cursor: filter.cursor,
        limit: filter.limit ?? 50,
      }).catch((err) => {
        if (err instanceof DomainError && err.code === 'invalid_cursor')
          return { orders: [], cursor: undefined };
        throw err;
      });
      const answer = toOrderPage(page, '/ops/orders', { ...filter, labelId: filter.labelId });
      const labels = session.viewer.kind === 'operator' ? await labelList(deps.app) : [];
      const ctx = await pageContext(deps, session, 'orders');
      return reply
        .type('text/html; charset=utf-8')
        .send(
          ordersPage(
            ctx,
            answer.orders,
            filter,
            answer.next ?? undefined,
            labels,
            temporal,
            noticeOf({ done, error: error ?? since.error ?? until.error }),
          ),
        );
    },
  );

  app.get(
    '/ops/labels/:labelId/orders/:orderId',
    {
      schema: {
        hide: true,
        params: orderParams,
        querystring: z
          .object({
            ...noticeFields,
            record: z.coerce.number().int().min(1).max(100_000).optional(),
          })
          .strict(),
      },
    },
    async (request, reply) => {
      const session = sessionOf(request);
      const labelId = labelScope(session, request.params.labelId);
      const { orderId } = request.params;
      const [order, events, [label], shops, facilities] = await Promise.all([
        orderView(deps.app, labelId, orderId),
        orderHistory(deps.app, labelId, orderId),
        labelList(deps.app, labelId),
        listShopIntegrations(deps.app, labelId),
        listFacilities(deps.app, labelId),
      ]);
      const names = {
        ...historyNames(events, new Map(shops.map((s) => [s.integration_id, s.name]))),
        facilities: new Map(facilities.map((f) => [f.facility_id, f.settings.name])),
      };
      const ctx = await pageContext(deps, session, 'orders');
      return reply
        .type('text/html; charset=utf-8')
        .send(
          orderDetailPage(
            ctx,
            order,
            label?.name ?? labelId,
            events,
            names,
            { ...temporal, workflowId: workflowIds.order(labelId, orderId) },
            deps.config.tracing.uiUrl,
            noticeOf(request.query),
            request.query.record,
          ),
        );
    },
  );

  app.get(
    '/ops/labels/:labelId/items/:orderItemId/mockups/:sha256',
    { schema: { hide: true, params: fileParams } },
    async (request, reply) => {
      const { labelId, orderItemId, sha256: sha } = request.params;
      const image = await orderItemMockupImage(
        deps.app,
        labelScope(sessionOf(request), labelId),
        orderItemId,
        sha,
      );
      return sendImage(reply, image.contentType, image.bytes);
    },
  );

  app.get(
    '/ops/labels/:labelId/items/:orderItemId/preview/:sha256/:page',
    {
      schema: {
        hide: true,
        params: fileParams.extend({ page: z.coerce.number().int().min(1).max(100) }).strict(),
      },
    },
    async (request, reply) => {
      const { labelId, orderItemId, sha256: sha, page } = request.params;
      const png = await printFilePreview(
        deps.app,
        labelScope(sessionOf(request), labelId),
        orderItemId,
        sha,
        page,
      );
      return sendImage(reply, 'image/png', png);
    },
  );

  app.get(
    '/ops/labels/:labelId/items/:orderItemId/records/:record',
    {
      schema: {
        hide: true,
        params: z
          .object({
            labelId: uuid,
            orderItemId: uuid,
            record: z.coerce.number().int().min(1).max(100_000),
          })
          .strict(),
      },
    },
    async (request, reply) => {
      const { labelId, orderItemId, record } = request.params;
      const png = await recordOf(
        deps.app,
        labelScope(sessionOf(request), labelId),
        orderItemId,
        record,
        'png',
      );
      return sendImage(reply, 'image/png', Buffer.from(png.bytes));
    },
  );

  app.get(
    '/ops/labels/:labelId/items/:orderItemId/printfile/:sha256',
    { schema: { hide: true, params: fileParams } },
    async (request, reply) => {
      const { labelId, orderItemId, sha256: sha } = request.params;
      const download = await printFileDownload(
        deps.app,
        labelScope(sessionOf(request), labelId),
        orderItemId,
        sha,
      );
      return sendPrintFile(reply, download, `${orderItemId}.pdf`, true);
    },
  );

  app.get(
    '/ops/projections',
    { schema: { hide: true, querystring: z.object(noticeFields).strict() } },
    async (request, reply) => {
      const session = sessionOf(request);
      // parked events carry other labels' stream ids and errors: the operator's only
      if (session.viewer.kind !== 'operator')
        throw new DomainError('not_found', 'no such page', 'page_not_found');
      const ctx = await pageContext(deps, session, 'projections');
      return reply
        .type('text/html; charset=utf-8')
        .send(
          projectionsPage(ctx, await subscriptionStatus(deps.runners), noticeOf(request.query)),
        );
    },
  );
};
