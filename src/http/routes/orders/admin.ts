import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findOrder, findOrderItem } from '../../../../projections/orders.ts';
import { changeBarcode, loadOrder, requestReplay } from '../../../app/orders.ts';
import { barcodeInputSchema } from '../../../domain/order/barcode.ts';
import { orderIdSchema, orderStream } from '../../../domain/order/events.ts';
import { principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { HttpProblem } from '../../problem.ts';
import { apiKeySecurity, idParams, problems } from '../../schemas/common.ts';

const tags = ['Administrator API'];
const orderParams = z.object({ orderId: orderIdSchema }).strict();
const notFound = () => new HttpProblem(404, 'order_not_found', 'order not found');

const printFileSchema = z.object({
  url: z.string(),
  sha256: z.string(),
  pages: z.number().int(),
  bytes: z.number().int(),
});
const orderSchema = z.object({
  orderId: z.string(),
  status: z.enum(['received', 'rendering', 'ready', 'failed']),
  reason: z.string().optional(),
  items: z.array(
    z.object({
      orderItemId: z.uuid(),
      itemId: z.string(),
      sku: z.string(),
      quantity: z.number().int(),
      status: z.string(),
      reason: z.string().optional(),
      warnings: z.array(z.string()),
      printFiles: z.array(printFileSchema),
      barcode: z.object({ format: z.string(), value: z.string() }).optional(),
    }),
  ),
});

/** Orders, their audit history, replay, print files and barcodes (admin key, own label only). */
export const orderAdminRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const fileUrl = (orderItemId: string, sha256: string) =>
    `${deps.config.publicBaseUrl}/api/orderitem/${orderItemId}/printfile?sha256=${sha256}`;

  app.get(
    '/orders/:orderId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'An order, its items, their status and print files',
        params: orderParams,
        response: { 200: orderSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const order = await findOrder(
        deps.pool,
        principalOf(request, 'admin').labelId,
        request.params.orderId,
      );
      if (!order) throw notFound();
      return {
        orderId: request.params.orderId,
        status: order.status as z.infer<typeof orderSchema>['status'],
        ...(order.reason ? { reason: order.reason } : {}),
        items: order.items.map((i) => ({
          orderItemId: i.order_item_id,
          itemId: i.item_id,
          sku: i.sku,
          quantity: i.quantity,
          status: i.status,
          ...(i.reason ? { reason: i.reason } : {}),
          warnings: i.warnings,
          printFiles: i.print_files.map((f) => ({
            url: fileUrl(i.order_item_id, f.sha256),
            sha256: f.sha256,
            pages: f.pages,
            bytes: f.bytes,
          })),
          ...(i.barcode ? { barcode: i.barcode } : {}),
        })),
      };
    },
  );

  app.get(
    '/orders/:orderId/history',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The order's events as stored, in order (personal data stays encrypted)",
        params: orderParams,
        response: {
          200: z.array(
            z.object({
              type: z.string(),
              at: z.string(),
              revision: z.number().int(),
              data: z.record(z.string(), z.unknown()),
            }),
          ),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { labelId } = principalOf(request, 'admin');
      if (!(await loadOrder(deps.store, labelId, request.params.orderId))) throw notFound();
      const events = await deps.store.readStream(orderStream(labelId, request.params.orderId));
      return events.map((e) => ({
        type: e.type,
        at: e.recordedAt.toISOString(),
        revision: Number(e.revision),
        data: e.data,
      }));
    },
  );

  app.post(
    '/orders/:orderId/replay',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Render the print files again from the recorded events and compare them',
        params: orderParams,
        response: {
          202: z.object({ workflowId: z.string() }),
          ...problems(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const { labelId } = principalOf(request, 'admin');
      const { workflowId } = await requestReplay(deps.store, labelId, request.params.orderId, {
        actor: `admin:${labelId}`,
        correlationId: request.id,
      });
      return reply.status(202).send({ workflowId });
    },
  );

  app.get(
    '/orderitem/:id/printfile',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The order item's print file (the latest, or the one with this sha256)",
        params: idParams,
        querystring: z
          .object({
            sha256: z
              .string()
              .regex(/^[0-9a-f]{64}$/)
              .optional(),
          })
          .strict(),
        response: {
          200: {
            description: 'the PDF',
            content: {
              'application/pdf': {
                schema: z.string().meta({ format: 'binary', example: '%PDF-1.6 ...' }),
              },
            },
          },
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const item = await findOrderItem(
        deps.pool,
        principalOf(request, 'admin').labelId,
        request.params.id,
      );
      const file = request.query.sha256
        ? item?.print_files.find((f) => f.sha256 === request.query.sha256)
        : item?.print_files.at(-1);
      const bytes = file && (await deps.storage.get(file.storageKey));
      if (!file || !bytes)
        throw new HttpProblem(404, 'print_file_not_found', 'no print file for this order item');
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="${request.params.id}.pdf"`)
        .header('etag', `"${file.sha256}"`)
        .send(bytes as never); // a Buffer goes out as it is, never serialised
    },
  );

  app.put(
    '/orderitem/:id/barcode',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "Set an order item's barcode; its print file is generated again",
        params: idParams,
        body: barcodeInputSchema.meta({ example: { format: 'ean13', value: '4006381333931' } }),
        response: {
          200: z.object({ orderItemId: z.uuid(), workflowId: z.string() }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { labelId } = principalOf(request, 'admin');
      return changeBarcode(deps.store, deps.pool, labelId, request.params.id, request.body, {
        actor: `admin:${labelId}`,
        correlationId: request.id,
      });
    },
  );
};
