import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  holdOrder,
  recordScan,
  releaseHold,
  requestReprint,
  shipItems,
  shipmentArrived,
} from '../../../app/production.ts';
import { orderIdSchema, REPRINT_REASONS } from '../../../domain/order/events.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import {
  apiKeySecurity,
  httpUrl,
  idempotencyHeader,
  instant,
  problems,
} from '../../schemas/common.ts';

const tags = ['Order fulfillment API'];
const line = (max: number) => z.string().trim().min(1).max(max);
const orderParams = z.object({ orderId: orderIdSchema }).strict();
const shipmentParams = orderParams.extend({ shipmentId: z.uuid({ message: 'must be a UUID' }) });
const idempotency = idempotencyHeader(
  'the same key with the same request answers what the first one did',
);

const scanBody = z
  .object({
    code: line(200).describe(
      "what the item's slug barcode holds (its order item id, or the barcode value set for it), or a press sheet's slug code (printed only)",
    ),
    stage: z.enum(['printed', 'packed']),
    station: line(100).optional().describe('where it was scanned: a press, a packing table'),
  })
  .strict()
  .meta({
    id: 'Scan',
    example: { code: '3f1c2b9e-8d4a-4f7e-9b1a-2c3d4e5f6a7b', stage: 'printed', station: 'Press 2' },
  });
const scanAnswer = z
  .union([
    z
      .object({
        orderId: z.string(),
        orderItemId: z.uuid(),
        itemId: z.string(),
        stage: z.enum(['printed', 'packed']),
      })
      .meta({ id: 'ItemScanAnswer' }),
    z
      .object({
        batchId: z.uuid(),
        sheet: z.number().int().min(1).max(9999),
        stage: z.literal('printed'),
        orderItemIds: z.array(z.uuid()).describe('the items on the sheet: printed a moment later'),
      })
      .meta({ id: 'SheetScanAnswer' }),
  ])
  .meta({ id: 'ScanAnswer' });

const shipmentBody = z
  .object({
    items: z
      .array(z.uuid({ message: 'must be a UUID' }))
      .min(1)
      .max(100)
      .optional()
      .describe('the order items in the parcel; every item of the order when left out'),
    carrier: line(100),
    trackingNumber: line(100),
    trackingUrl: httpUrl.optional(),
    shippedAt: instant.optional().describe('when it left; now when left out'),
  })
  .strict()
  .meta({
    id: 'Shipment',
    example: {
      carrier: 'DHL',
      trackingNumber: '00340434161094042557',
      trackingUrl: 'https://www.dhl.com/track?tracking-id=00340434161094042557',
    },
  });
const shipmentStatus = z
  .object({ shipmentId: z.uuid(), status: z.enum(['shipped', 'delivered', 'returned']) })
  .meta({ id: 'ShipmentStatus' });

/**
 * The shop floor, for the label's fulfillment partner (its fulfillment key): scans at
 * stations, shipments with tracking, holds and reprints. Another label's orders, items
 * and codes are not found.
 */
export const productionRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (
  app,
  { deps },
) => {
  app.addHook('onRequest', app.requireKey('fulfillment'));
  const labelOf = (request: Parameters<typeof metadataOf>[0]) => {
    const { labelId, facilityId } = principalOf(request, 'fulfillment');
    return { labelId, facilityId };
  };

  app.post(
    '/production/scans',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'A scan at a station: the item the code names is printed or packed (the same scan again changes nothing)',
        body: scanBody,
        response: { 200: scanAnswer, ...problems(400, 401, 403, 404, 409, 415) },
      },
    },
    async (request) => recordScan(deps.app, labelOf(request), request.body, metadataOf(request)),
  );

  app.post(
    '/orders/:orderId/shipments',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Items of the order left in a parcel, with tracking (each item ships once)',
        params: orderParams,
        headers: idempotency,
        body: shipmentBody,
        response: {
          201: z.object({ shipmentId: z.uuid() }).meta({ id: 'ShipmentCreated' }),
          ...problems(400, 401, 403, 404, 409, 415),
        },
      },
    },
    async (request, reply) => {
      const { shippedAt, ...rest } = request.body;
      const answer = await shipItems(
        deps.app,
        labelOf(request),
        request.params.orderId,
        { ...rest, shippedAt: shippedAt ? new Date(shippedAt) : undefined },
        request.headers['idempotency-key'],
        metadataOf(request),
      );
      return reply.status(201).send(answer);
    },
  );

  app.post(
    '/orders/:orderId/shipments/:shipmentId/delivered',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'The carrier delivered the shipment',
        params: shipmentParams,
        response: { 200: shipmentStatus, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      shipmentArrived(
        deps.app,
        labelOf(request),
        request.params.orderId,
        request.params.shipmentId,
        { delivered: true },
        metadataOf(request),
      ),
  );

  app.post(
    '/orders/:orderId/shipments/:shipmentId/returned',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'The shipment came back (its items can be reprinted and shipped again)',
        params: shipmentParams,
        body: z
          .object({ reason: line(500) })
          .strict()
          .meta({ id: 'ShipmentReturn', example: { reason: 'address unknown' } }),
        response: { 200: shipmentStatus, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request) =>
      shipmentArrived(
        deps.app,
        labelOf(request),
        request.params.orderId,
        request.params.shipmentId,
        { delivered: false, reason: request.body.reason },
        metadataOf(request),
      ),
  );

  app.post(
    '/orders/:orderId/holds',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Hold the order: nothing of it is printed or shipped until released; its ship-by clock pauses',
        params: orderParams,
        headers: idempotency,
        body: z
          .object({ reason: line(500) })
          .strict()
          .meta({ id: 'Hold', example: { reason: 'artwork query with the customer' } }),
        response: {
          201: z.object({ holdId: z.uuid() }).meta({ id: 'HoldCreated' }),
          ...problems(400, 401, 403, 404, 409, 415),
        },
      },
    },
    async (request, reply) => {
      const { orderId } = request.params;
      const answer = await holdOrder(
        deps.app,
        labelOf(request),
        orderId,
        request.body.reason,
        request.headers['idempotency-key'],
        metadataOf(request),
      );
      return reply.status(201).send(answer);
    },
  );

  app.delete(
    '/orders/:orderId/holds/:holdId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Release a hold (released already: nothing changes)',
        params: orderParams.extend({ holdId: z.uuid({ message: 'must be a UUID' }) }),
        response: {
          200: z
            .object({ holdId: z.uuid(), status: z.literal('released') })
            .meta({ id: 'HoldReleased' }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { orderId, holdId } = request.params;
      await releaseHold(deps.app, labelOf(request), orderId, holdId, metadataOf(request));
      return { holdId, status: 'released' as const };
    },
  );

  app.post(
    '/orderitems/:orderItemId/reprints',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "Print an item again: its print file is rendered again, checked identical, and the item goes back on the shop floor; a variable item's reprint may name records, and a file of just those is made (each record's bytes checked against the recorded file)",
        params: z.object({ orderItemId: z.uuid({ message: 'must be a UUID' }) }).strict(),
        body: z
          .object({
            reason: z.enum(REPRINT_REASONS),
            note: line(500).optional(),
            records: z
              .array(z.number().int().min(1).max(100_000))
              .min(1)
              .max(1000)
              .optional()
              .describe(
                "a variable item's records to print again (1-based); the whole item when absent",
              ),
          })
          .strict()
          .meta({ id: 'Reprint', example: { reason: 'damaged', note: 'torn in transit' } }),
        response: {
          202: z
            .object({ reprintId: z.uuid(), orderItemId: z.uuid(), workflowId: z.string() })
            .meta({ id: 'ReprintAccepted' }),
          ...problems(400, 401, 403, 404, 409, 415),
        },
      },
    },
    async (request, reply) =>
      reply.status(202).send(
        await requestReprint(
          deps.app,
          labelOf(request),
          request.params.orderItemId,
          {
            ...request.body,
            // each record once, in order: a reprint's file holds them as the item's does
            ...(request.body.records
              ? { records: [...new Set(request.body.records)].sort((a, b) => a - b) }
              : {}),
          },
          metadataOf(request),
        ),
      ),
  );
};
