import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { orderItemMockupImage, orderItemMockupList } from '../../../app/mockups.ts';
import { orderPage } from '../../../app/order-lists.ts';
import { cancelOrder, retryOrder } from '../../../app/order-operations.ts';
import { changeBarcode, orderHistory, orderView, requestReplay } from '../../../app/orders.ts';
import { printFilePreview } from '../../../app/previews.ts';
import { printFileDownload } from '../../../app/print-file-downloads.ts';
import { proofLinkMaker } from '../../../app/proof-links.ts';
import { barcodeInputSchema } from '../../../domain/order/barcode.ts';
import { orderIdSchema, orderStream } from '../../../domain/order/events.ts';
import {
  AnswerWaits,
  abortedWith,
  preferredWait,
  versionKnown,
  versionOf,
} from '../../answer-waits.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { FreshReads } from '../../fresh-reads.ts';
import { sendImage } from '../../image-reply.ts';
import { responseHeaders } from '../../openapi/document.ts';
import { sendPrintFile } from '../../print-file-reply.ts';
import {
  apiKeySecurity,
  conditionalHeaders,
  idParams,
  notModified,
  problems,
  sha256Hex,
} from '../../schemas/common.ts';
import { mockupImage, orderItemMockupsSchema } from '../../schemas/mockup.ts';
import { historySchema, orderSchema, toHistory, toOrderAnswer } from '../../schemas/order.ts';
import {
  cancelAnswerSchema,
  cancelBody,
  orderListQuery,
  orderPageSchema,
  retryAnswerSchema,
  toOrderPage,
} from '../../schemas/order-list.ts';
import { previewQuery } from '../../schemas/preview.ts';

const tags = ['Administrator API'];
const orderParams = z.object({ orderId: orderIdSchema }).strict();
/** the read model an order's answer comes from */
const ORDERS_READ_MODEL = 'orders';
/** answers held waiting for a change, per process (beyond them, answered at once) */
export const MAX_ORDER_WAITS = 100;

/** Orders, their audit history, replay, print files and barcodes (admin key, own label only). */
export const orderAdminRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  const label = (request: Parameters<typeof principalOf>[0]) =>
    principalOf(request, 'admin').labelId;

  app.get(
    '/orders',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "The label's orders, newest first: by status (or overdue), receipt time, id prefix; keyset pages",
        querystring: orderListQuery,
        response: { 200: orderPageSchema, ...problems(400, 401, 403) },
        ...responseHeaders({ 200: ['x-pagination-next'] }),
      },
    },
    async (request, reply) => {
      const { since, until, ...query } = request.query;
      const page = await orderPage(deps.app, {
        ...query,
        labelId: label(request),
        since: since ? new Date(since) : undefined,
        until: until ? new Date(until) : undefined,
      });
      const answer = toOrderPage(page, '/api/orders', request.query);
      if (answer.next) reply.header('x-pagination-next', answer.next);
      return answer;
    },
  );

  app.post(
    '/orders/:orderId/retry',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "Render the order's failed items again (once it has finished); asking again while it runs changes nothing",
        params: orderParams,
        response: { 202: retryAnswerSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await retryOrder(deps.app, label(request), request.params.orderId, metadataOf(request)),
        ),
  );

  app.post(
    '/orders/:orderId/cancel',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Cancel an order that is not to be printed: its workflow stops, no further print file is made',
        params: orderParams,
        body: cancelBody.nullish(),
        response: { 200: cancelAnswerSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      cancelOrder(
        deps.app,
        label(request),
        request.params.orderId,
        request.body?.reason,
        metadataOf(request),
      ),
  );

  app.get(
    '/orderitem/:id/mockups',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "The order item's mockups (its print file on the label's product photos), newest first",
        params: idParams,
        response: { 200: orderItemMockupsSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => orderItemMockupList(deps.app, label(request), request.params.id),
  );

  app.get(
    '/orderitem/:id/mockups/:sha256',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'One mockup of the order item, by its sha256',
        params: idParams.extend({ sha256: sha256Hex }),
        response: { 200: mockupImage, ...problems(400, 401, 403, 404) },
        ...responseHeaders({ 200: ['cache-control'] }),
      },
    },
    async (request, reply) => {
      const image = await orderItemMockupImage(
        deps.app,
        label(request),
        request.params.id,
        request.params.sha256,
      );
      return sendImage(reply, image.contentType, image.bytes);
    },
  );

  app.get(
    '/orderitem/:id/preview',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'A PNG preview of one page of one of the order item’s print files',
        params: idParams,
        querystring: previewQuery,
        response: {
          200: {
            description: 'the page as a PNG, 600 pixels on its longer side',
            content: { 'image/png': { schema: z.string().meta({ format: 'binary' }) } },
          },
          ...problems(400, 401, 403, 404),
        },
        ...responseHeaders({ 200: ['cache-control'] }),
      },
    },
    async (request, reply) => {
      const png = await printFilePreview(
        deps.app,
        label(request),
        request.params.id,
        request.query.sha256,
        request.query.page,
      );
      return sendImage(reply, 'image/png', png);
    },
  );

  // an order's answer waits for its change when the client asks (`Prefer: wait`); the
  // waits end early when the server closes
  const waits = new AnswerWaits(deps.feed, {
    max: MAX_ORDER_WAITS,
    appendsOnFeed: deps.appendsOnFeed,
  });
  // the same order's answer asked at once is read once (a flood of waits on one order
  // must not queue thousands of queries ahead of other labels' requests)
  const orderAnswers = new FreshReads<{ body: z.infer<typeof orderSchema>; version: string }>();
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  app.get(
    '/orders/:orderId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'An order, its items, their status and print files; waits for a change when asked',
        params: orderParams,
        headers: conditionalHeaders,
        response: { 200: orderSchema, 304: notModified, ...problems(400, 401, 403, 404) },
        ...responseHeaders({
          200: ['etag', 'preference-applied'],
          304: ['etag', 'preference-applied'],
        }),
      },
    },
    async (request, reply) => {
      const labelId = label(request);
      const { orderId } = request.params;
      const known = request.headers['if-none-match'];
      const wait = known ? preferredWait(request.headers.prefer) : undefined;
      const gone = AbortSignal.any([closing.signal, abortedWith(reply)]);
      const { answer, changed, waited } = await waits.until({
        read: () =>
          orderAnswers.read(`${labelId}\u0000${orderId}`, async () => {
            const body = toOrderAnswer(
              await orderView(deps.app, labelId, orderId),
              orderId,
              deps.config.publicBaseUrl,
              proofLinkMaker(deps.config.publicBaseUrl, deps.config.editorTokenSecret),
            );
            return { body, version: versionOf(body) };
          }),
        changed: (a) => !versionKnown(known, a.version),
        // a held wait is bounded by the process's places for waits, not by the label's reads
        onHeld: () => request.leaveDoor(),
        readModel: ORDERS_READ_MODEL,
        streamId: orderStream(labelId, orderId),
        waitMs: (wait ?? 0) * 1000,
        signal: gone,
      });
      reply.header('etag', answer.version);
      if (waited) reply.header('preference-applied', `wait=${wait}`);
      if (!changed) return reply.code(304).send(null);
      return answer.body;
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
        response: { 200: historySchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) =>
      toHistory(await orderHistory(deps.app, label(request), request.params.orderId)),
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
          202: z.object({ workflowId: z.string() }).meta({ id: 'ReplayStarted' }),
          ...problems(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const { workflowId } = await requestReplay(
        deps.app,
        label(request),
        request.params.orderId,
        metadataOf(request),
      );
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
        description:
          'Streamed with its length, ETag and Repr-Digest (the sha256 the order reports); or, when the service is set to hand out links (PRINT_FILE_DOWNLOADS=redirect), a 302 to a short-lived signed link into the object storage.',
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
          // no body: the link is in Location
          302: z
            .null()
            .describe('a signed link to the PDF in the object storage (Location), short-lived'),
          ...problems(400, 401, 403, 404),
        },
        ...responseHeaders({
          200: ['content-disposition', 'etag', 'repr-digest', 'cache-control'],
          302: ['location', 'cache-control'],
        }),
      },
    },
    async (request, reply) => {
      const download = await printFileDownload(
        deps.app,
        label(request),
        request.params.id,
        request.query.sha256,
      );
      return sendPrintFile(
        reply,
        download,
        `${request.params.id}.pdf`,
        request.query.sha256 !== undefined,
      );
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
        body: barcodeInputSchema.meta({
          id: 'BarcodeChange',
          example: { format: 'ean13', value: '4006381333931' },
          discriminator: {
            propertyName: 'format',
            mapping: {
              code128: '#/components/schemas/Code128Barcode',
              ean13: '#/components/schemas/Ean13Barcode',
              qrcode: '#/components/schemas/QrCodeBarcode',
              datamatrix: '#/components/schemas/DataMatrixBarcode',
            },
          },
        }),
        response: {
          200: z
            .object({ orderItemId: z.uuid(), workflowId: z.string() })
            .meta({ id: 'BarcodeChangeStarted' }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) =>
      changeBarcode(deps.app, label(request), request.params.id, request.body, metadataOf(request)),
  );
};
