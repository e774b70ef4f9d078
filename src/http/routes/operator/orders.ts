import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_PARTNER_ID } from '#projections/labels';
import {
  labelList,
  setLabelShare,
  setRenderDeadline,
  setShipDeadline,
} from '../../../app/labels.ts';
import { orderPage } from '../../../app/order-lists.ts';
import { cancelOrder, retryOrder } from '../../../app/order-operations.ts';
import { orderHistory, orderView } from '../../../app/orders.ts';
import { proofLinkMaker } from '../../../app/proof-links.ts';
import {
  renderWithinMinutesSchema,
  shareFactorSchema,
  shipWithinHoursSchema,
} from '../../../domain/label/events.ts';
import { orderIdSchema } from '../../../domain/order/events.ts';
import { metadataOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { responseHeaders } from '../../openapi/document.ts';
import { apiKeySecurity, problems } from '../../schemas/common.ts';
import { historySchema, orderSchema, toHistory, toOrderAnswer } from '../../schemas/order.ts';
import {
  cancelAnswerSchema,
  cancelBody,
  orderListQuery,
  orderPageSchema,
  retryAnswerSchema,
  toOrderPage,
} from '../../schemas/order-list.ts';

const tags = ['Operator API'];
const labelParams = z.object({ labelId: z.uuid({ message: 'must be a UUID' }) }).strict();
const orderParams = labelParams.extend({ orderId: orderIdSchema }).strict();

/** Every label's orders, and acting on any of them (the operator key; under /operator). */
export const operatorOrderRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  app.get(
    '/labels',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Every label: name, partner id, render and ship-by deadlines',
        response: {
          200: z.array(
            z
              .object({
                labelId: z.uuid(),
                name: z.string(),
                partnerId: z.number().int().min(1).max(MAX_PARTNER_ID),
                renderWithinMinutes: renderWithinMinutesSchema,
                shipWithinHours: shipWithinHoursSchema,
              })
              .meta({ id: 'Label' }),
          ),
          ...problems(401, 403),
        },
      },
    },
    async () =>
      (await labelList(deps.app)).map((l) => ({
        labelId: l.label_id,
        name: l.name,
        partnerId: l.partner_id,
        renderWithinMinutes: l.render_within_minutes,
        shipWithinHours: l.ship_within_hours,
      })),
  );

  app.put(
    '/labels/:labelId/ship-deadline',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "How long the label's orders may take from receipt to shipment before they are late (orders received from now on)",
        params: labelParams,
        body: z
          .object({ shipWithinHours: shipWithinHoursSchema })
          .strict()
          .meta({ id: 'ShipDeadlineChange', example: { shipWithinHours: 48 } }),
        response: {
          200: z
            .object({ labelId: z.uuid(), shipWithinHours: shipWithinHoursSchema })
            .meta({ id: 'ShipDeadline' }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      setShipDeadline(
        deps.app,
        request.params.labelId,
        request.body.shipWithinHours,
        metadataOf(request),
      ),
  );

  app.put(
    '/labels/:labelId/render-deadline',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "How long the label's orders may take to render before they are overdue (orders received from now on)",
        params: labelParams,
        body: z
          .object({ renderWithinMinutes: renderWithinMinutesSchema })
          .strict()
          .meta({ id: 'RenderDeadlineChange', example: { renderWithinMinutes: 30 } }),
        response: {
          200: z
            .object({ labelId: z.uuid(), renderWithinMinutes: renderWithinMinutesSchema })
            .meta({ id: 'RenderDeadline' }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      setRenderDeadline(
        deps.app,
        request.params.labelId,
        request.body.renderWithinMinutes,
        metadataOf(request),
      ),
  );

  app.put(
    '/labels/:labelId/share',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "The label's share of the service: a factor on the running and waiting places of every cost class (1 by default)",
        params: labelParams,
        body: z
          .object({ factor: shareFactorSchema })
          .strict()
          .meta({ id: 'LabelShareChange', example: { factor: 4 } }),
        response: {
          200: z
            .object({ labelId: z.uuid(), factor: shareFactorSchema })
            .meta({ id: 'LabelShare' }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      setLabelShare(deps.app, request.params.labelId, request.body.factor, metadataOf(request)),
  );

  app.get(
    '/orders',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "Every label's orders (or one label's), newest first: by status (or overdue), receipt time, id prefix; keyset pages",
        querystring: orderListQuery.extend({ labelId: z.uuid().optional() }).strict(),
        response: { 200: orderPageSchema, ...problems(400, 401, 403) },
        ...responseHeaders({ 200: ['x-pagination-next'] }),
      },
    },
    async (request, reply) => {
      const { since, until, ...query } = request.query;
      const page = await orderPage(deps.app, {
        ...query,
        since: since ? new Date(since) : undefined,
        until: until ? new Date(until) : undefined,
      });
      const answer = toOrderPage(page, '/operator/orders', request.query);
      if (answer.next) reply.header('x-pagination-next', answer.next);
      return answer;
    },
  );

  app.get(
    '/labels/:labelId/orders/:orderId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "An order of a label, as the label's admin sees it",
        params: orderParams,
        response: { 200: orderSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { labelId, orderId } = request.params;
      return toOrderAnswer(
        await orderView(deps.app, labelId, orderId),
        orderId,
        deps.config.publicBaseUrl,
        proofLinkMaker(deps.config.publicBaseUrl, deps.config.editorTokenSecret),
      );
    },
  );

  app.get(
    '/labels/:labelId/orders/:orderId/history',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The order's events as stored, in order",
        params: orderParams,
        response: { 200: historySchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) =>
      toHistory(await orderHistory(deps.app, request.params.labelId, request.params.orderId)),
  );

  app.post(
    '/labels/:labelId/orders/:orderId/retry',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "Render the order's failed items again (once it has finished)",
        params: orderParams,
        response: { 202: retryAnswerSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { labelId, orderId } = request.params;
      return reply
        .status(202)
        .send(await retryOrder(deps.app, labelId, orderId, metadataOf(request)));
    },
  );

  app.post(
    '/labels/:labelId/orders/:orderId/cancel',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Cancel an order that is not to be printed',
        params: orderParams,
        body: cancelBody.nullish(),
        response: { 200: cancelAnswerSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { labelId, orderId } = request.params;
      return cancelOrder(deps.app, labelId, orderId, request.body?.reason, metadataOf(request));
    },
  );
};
