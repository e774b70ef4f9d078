import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  batchFile,
  batchList,
  batchOf,
  batchView,
  cancelBatch,
  MAX_BATCH_ITEMS,
  openBatch,
  requestBatchReplay,
} from '../../../app/batches.ts';
import { BATCH_MODES, mediaSchema } from '../../../domain/batch/events.ts';
import { PRESET_NAMES } from '../../../production/presets.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { responseHeaders } from '../../openapi/document.ts';
import {
  apiKeySecurity,
  idempotencyHeader,
  instant,
  problems,
  sha256Hex,
} from '../../schemas/common.ts';

const tags = ['Order fulfillment API'];
const mmOf = (min: number, max: number) => z.number().min(min).max(max);
const int = z.number().int().min(0).max(1_000_000);

export const mediaInput = z
  .union([
    z.object({ preset: z.enum(PRESET_NAMES) }).strict(),
    z.object({ widthMm: mmOf(50, 2000), heightMm: mmOf(50, 3000) }).strict(),
    z.object({ rollWidthMm: mmOf(50, 5000), maxLengthMm: mmOf(100, 100_000) }).strict(),
  ])
  .describe(
    'a preset (SRA3, A3, 12x18in, 13x19in, roll-560mm, dtf-22in), a sheet size, or a roll (width, and the longest piece cut from it)',
  )
  .meta({ id: 'BatchMediaInput' });

export const impositionFields = {
  media: mediaInput,
  mode: z.enum(BATCH_MODES).describe('step-repeat: cut marks; gang: nested, with a CutContour'),
  gutterMm: mmOf(0, 50)
    .optional()
    .describe("between pieces (0 by default: each piece's 3 mm bleed keeps the trims 6 mm apart)"),
  marginMm: mmOf(0, 50).optional().describe('kept clear at every edge (5 by default)'),
  allowRotation: z.boolean().optional().describe('pieces may be turned (by default in gang mode)'),
  copies: z
    .union([z.literal('quantity'), z.literal(1)])
    .optional()
    .describe("each item's quantity in copies (the default), or one copy each"),
};

const batchBody = z
  .object({
    items: z
      .array(z.uuid({ message: 'must be a UUID' }))
      .min(1)
      .max(MAX_BATCH_ITEMS)
      .optional()
      .describe('the order items to batch; left out: the ready items the filter finds'),
    imposition: z
      .literal('cut-and-stack')
      .optional()
      .describe(
        "one variable item's records in a step-repeat grid such that, the pile of sheets cut, each position is a stack of consecutive records (the job sheet says which records each stack holds)",
      ),
    filter: z
      .object({
        printMethod: z.string().trim().min(1).max(100).optional(),
        sku: z.string().trim().min(1).max(200).optional(),
        readyBefore: instant.optional(),
      })
      .strict()
      .optional(),
    ...impositionFields,
  })
  .strict()
  .refine((b) => !(b.items && b.filter), { message: 'give items or a filter, not both' })
  .meta({
    id: 'BatchRequest',
    example: { filter: { printMethod: 'digital' }, media: { preset: 'SRA3' }, mode: 'step-repeat' },
  });

const refusal = z
  .object({ orderItemId: z.string(), code: z.string(), reason: z.string() })
  .meta({ id: 'BatchRefusal' });
const placement = z
  .object({
    orderItemId: z.uuid(),
    copy: int,
    page: int,
    xMm: z.number(),
    yMm: z.number(),
    widthMm: z.number(),
    heightMm: z.number(),
    rotated: z.boolean(),
  })
  .meta({
    id: 'BatchPlacement',
    description: "a piece with its bleed, from the sheet's top left, in millimetres, as placed",
  });
const batchAnswer = z
  .object({
    batchId: z.uuid(),
    facilityId: z.uuid().optional().describe('the facility whose press run it is'),
    status: z.enum(['claiming', 'imposing', 'imposed', 'printed', 'failed', 'cancelled']),
    mode: z.enum(BATCH_MODES),
    media: mediaSchema,
    gutterMm: z.number(),
    marginMm: z.number(),
    allowRotation: z.boolean(),
    copies: z.union([z.literal('quantity'), z.literal(1)]),
    imposition: z.literal('cut-and-stack').optional(),
    source: z.string(),
    requestedAt: instant,
    printMethod: z.string().nullable(),
    inkSet: z.string().nullable(),
    outputProfile: z.string().nullable(),
    items: z.array(
      z.object({
        orderItemId: z.uuid(),
        orderId: z.string(),
        itemId: z.string(),
        sku: z.string(),
        quantity: int,
        copies: int,
        printFileSha256: sha256Hex,
      }),
    ),
    refused: z.array(refusal),
    sheets: z.array(
      z.object({
        n: int,
        sha256: sha256Hex,
        widthMm: z.number(),
        heightMm: z.number(),
        utilisation: z.number().describe('placed area with bleed / usable area'),
        printedAt: instant.nullable(),
        placements: z.array(placement),
      }),
    ),
    sheetCount: int.nullable(),
    lowerBound: int
      .nullable()
      .describe('no layout needs fewer sheets: ceil(placed area / usable sheet area)'),
    utilisation: z.number().nullable(),
    heuristic: z.string().nullable(),
    warnings: z.array(z.string()),
    failure: z.string().nullable(),
    hotFolder: z
      .object({ location: z.string(), files: z.array(z.string()), at: instant })
      .nullable(),
    cancelledAt: instant.nullable(),
    replays: z.array(
      z.object({
        replayId: z.uuid(),
        requestedAt: instant,
        at: instant.nullable(),
        matches: z.boolean().nullable(),
        sheets: z.array(z.object({ n: int, expected: z.string(), actual: z.string() })),
      }),
    ),
  })
  .meta({ id: 'Batch' });

const batchParams = z.object({ batchId: z.uuid({ message: 'must be a UUID' }) }).strict();
const sheetParams = batchParams.extend({ n: z.coerce.number().int().min(1).max(9999) }).strict();
const binary = (description: string) =>
  z.instanceof(Buffer).meta({ type: 'string', format: 'binary', description });
const idempotency = idempotencyHeader('the same key again answers the same batch');

function sendFile(
  reply: FastifyReply,
  file: Awaited<ReturnType<typeof batchFile>>,
  type: string,
  filename: string,
) {
  return reply
    .type(type)
    .header('content-length', file.size)
    .header('content-disposition', `inline; filename="${filename}"`)
    .header('etag', `"${file.sha256}"`)
    .header('cache-control', 'private, max-age=31536000, immutable')
    .send(file.body);
}

/**
 * Press runs, for the label's fulfillment partner: batches of ready items imposed on
 * sheets and rolls, their sheets, job ticket (XJDF) and job sheet, cancel and replay.
 */
export const batchRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  app.addHook('onRequest', app.requireKey('fulfillment'));
  // a facility's key: its own press runs and items only
  const labelOf = (request: Parameters<typeof metadataOf>[0]) => {
    const { labelId, facilityId } = principalOf(request, 'fulfillment');
    return { labelId, facilityId };
  };

  app.post(
    '/production/batches',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Opens a press run: ready items of one print method, ink set and output profile, imposed on the media from the log',
        headers: idempotency,
        body: batchBody,
        response: {
          202: z
            .object({
              batchId: z.uuid(),
              candidates: int.describe('items the batch will try to take'),
              refused: z.array(refusal).describe('items named that it cannot take, with why'),
            })
            .meta({ id: 'BatchAccepted' }),
          ...problems(400, 401, 403, 409, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const { readyBefore, ...filter } = request.body.filter ?? {};
      const answer = await openBatch(
        deps.app,
        labelOf(request),
        {
          ...request.body,
          filter: request.body.filter
            ? { ...filter, readyBefore: readyBefore ? new Date(readyBefore) : undefined }
            : undefined,
        },
        request.headers['idempotency-key'],
        metadataOf(request),
      );
      return reply.status(202).send(answer);
    },
  );

  app.get(
    '/production/batches',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "The label's press runs, newest first (at most 100)",
        response: {
          200: z
            .object({
              batches: z.array(
                z.object({
                  batchId: z.uuid(),
                  code: z.string(),
                  status: z.string(),
                  mode: z.enum(BATCH_MODES),
                  source: z.string(),
                  items: int,
                  sheetCount: int.nullable(),
                  lowerBound: int.nullable(),
                  utilisation: z.number().nullable(),
                  requestedAt: instant,
                }),
              ),
            })
            .meta({ id: 'BatchList' }),
          ...problems(401, 403),
        },
      },
    },
    async (request) => ({ batches: await batchList(deps.app, labelOf(request)) }),
  );

  app.get(
    '/production/batches/:batchId',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'A press run: its status, sheets with their placements and utilisation, replays',
        params: batchParams,
        response: { 200: batchAnswer, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => batchView(await batchOf(deps.app, labelOf(request), request.params.batchId)),
  );

  app.get(
    '/production/batches/:batchId/sheets/:n',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'A press sheet (PDF/X-4), as recorded (its sha256 is the ETag)',
        params: sheetParams,
        produces: ['application/pdf'],
        response: { 200: binary('the sheet'), ...problems(400, 401, 403, 404) },
        ...responseHeaders({ 200: ['content-disposition'] }),
      },
    },
    async (request, reply) => {
      const { batchId, n } = request.params;
      const file = await batchFile(deps.app, labelOf(request), batchId, { sheet: n });
      return sendFile(reply, file, 'application/pdf', `${batchId}-sheet-${n}.pdf`);
    },
  );

  app.get(
    '/production/batches/:batchId/ticket.xjdf',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'The job ticket (CIP4 XJDF 2.0): the sheets, media, copies and cutting',
        params: batchParams,
        produces: ['application/vnd.cip4-xjdf+xml'],
        response: { 200: binary('the XJDF document'), ...problems(400, 401, 403, 404) },
        ...responseHeaders({ 200: ['content-disposition'] }),
      },
    },
    async (request, reply) => {
      const { batchId } = request.params;
      const file = await batchFile(deps.app, labelOf(request), batchId, 'ticket');
      return sendFile(reply, file, 'application/vnd.cip4-xjdf+xml', `${batchId}.xjdf`);
    },
  );

  app.get(
    '/production/batches/:batchId/job-sheet',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "The job sheet (PDF) for the press: the batch's barcode, every item with its barcode",
        params: batchParams,
        produces: ['application/pdf'],
        response: { 200: binary('the job sheet'), ...problems(400, 401, 403, 404) },
        ...responseHeaders({ 200: ['content-disposition'] }),
      },
    },
    async (request, reply) => {
      const { batchId } = request.params;
      const file = await batchFile(deps.app, labelOf(request), batchId, 'job-sheet');
      return sendFile(reply, file, 'application/pdf', `${batchId}-job-sheet.pdf`);
    },
  );

  app.post(
    '/production/batches/:batchId/replay',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          'Imposes the batch again from its events and records whether each sheet is the same',
        params: batchParams,
        response: {
          202: z
            .object({ batchId: z.uuid(), replayId: z.uuid() })
            .meta({ id: 'BatchReplayAccepted' }),
          ...problems(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(
          await requestBatchReplay(
            deps.app,
            labelOf(request),
            request.params.batchId,
            metadataOf(request),
          ),
        ),
  );

  app.post(
    '/production/batches/:batchId/cancel',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Cancels a press run: its items not printed are ready again',
        params: batchParams,
        body: z
          .object({ reason: z.string().trim().min(1).max(500).optional() })
          .strict()
          .optional()
          .meta({ id: 'BatchCancel' }),
        response: {
          200: z.object({ batchId: z.uuid(), status: z.string() }).meta({ id: 'BatchCancelled' }),
          ...problems(400, 401, 403, 404, 409, 415),
        },
      },
    },
    async (request) =>
      cancelBatch(
        deps.app,
        labelOf(request),
        request.params.batchId,
        request.body?.reason,
        metadataOf(request),
      ),
  );
};
