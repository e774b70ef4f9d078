import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { branding, removeLogo, setBranding, setLogo } from '../../../app/branding.ts';
import { labelDeadlines } from '../../../app/labels.ts';
import {
  renderWithinMinutesSchema,
  SLIP_SIZES,
  shipWithinHoursSchema,
} from '../../../domain/label/events.ts';
import { metadataOf, principalOf } from '../../auth.ts';
import type { HttpDeps } from '../../deps.ts';
import { HttpProblem } from '../../problem.ts';
import { apiKeySecurity, problems, sha256Hex } from '../../schemas/common.ts';

const tags = ['Administrator API'];
/** A logo is a small image; 2 MiB holds any sensible one. */
const LOGO_LIMIT = 2 * 1024 * 1024;
const LOGO_TYPES = ['image/png', 'image/jpeg'];

const brandingSchema = z
  .object({
    logo: z
      .object({
        sha256: sha256Hex,
        width: z.number().int().min(1).max(1200),
        height: z.number().int().min(1).max(1200),
      })
      .nullable()
      .describe('the logo as kept: a PNG of at most 1200 px'),
    returnAddress: z.array(z.string()),
    message: z.string().nullable(),
    slipSize: z.enum(SLIP_SIZES),
  })
  .meta({ id: 'Branding', description: "what the label's packing slips show" });

const brandingChange = z
  .object({
    returnAddress: z.array(z.string().trim().min(1).max(100)).max(6).optional(),
    message: z.string().trim().max(500).nullable().optional(),
    slipSize: z.enum(SLIP_SIZES).optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'give returnAddress, message or slipSize',
  })
  .meta({
    id: 'BrandingChange',
    minProperties: 1,
    example: {
      returnAddress: ['Print & Co', 'Hauptstraße 1', '10115 Berlin', 'Germany'],
      message: 'Thank you for your order!',
      slipSize: 'A4',
    },
  });

/** The label's deadlines and packing-slip branding (its admin key). */
export const brandingRoutes: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const labelOf = (request: Parameters<typeof metadataOf>[0]) =>
    principalOf(request, 'admin').labelId;
  app.addContentTypeParser(
    LOGO_TYPES,
    { parseAs: 'buffer', bodyLimit: LOGO_LIMIT },
    (_r, body, done) => done(null, body),
  );

  app.get(
    '/deadlines',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "The label's deadlines: to render an order, and to ship it (the operator sets them)",
        response: {
          200: z
            .object({
              labelId: z.uuid(),
              renderWithinMinutes: renderWithinMinutesSchema,
              shipWithinHours: shipWithinHoursSchema,
            })
            .meta({ id: 'Deadlines' }),
          ...problems(401, 403, 404),
        },
      },
    },
    async (request) => labelDeadlines(deps.app, labelOf(request)),
  );

  app.get(
    '/branding',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'What the packing slips show: logo, return address, message, page size',
        response: { 200: brandingSchema, ...problems(401, 403, 404) },
      },
    },
    async (request) => branding(deps.app, labelOf(request)),
  );

  app.put(
    '/branding',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Set the return address, message or page size of the packing slips',
        body: brandingChange,
        response: { 200: brandingSchema, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request) => setBranding(deps.app, labelOf(request), request.body, metadataOf(request)),
  );

  app.put(
    '/branding/logo',
    {
      bodyLimit: LOGO_LIMIT,
      config: { bodyTypes: LOGO_TYPES },
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'The logo of the packing slips (a PNG or JPEG as the body, at most 2 MiB)',
        consumes: LOGO_TYPES,
        body: z.instanceof(Buffer).meta({ type: 'string', format: 'binary' }),
        response: { 200: brandingSchema, ...problems(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      if (!Buffer.isBuffer(request.body) || request.body.length === 0)
        throw new HttpProblem(400, 'invalid_logo', 'send the logo image as the body');
      const type = String(request.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim();
      return setLogo(deps.app, labelOf(request), type, request.body, metadataOf(request));
    },
  );

  app.delete(
    '/branding/logo',
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'No logo on the packing slips from now on',
        response: { 200: brandingSchema, ...problems(401, 403, 404) },
      },
    },
    async (request) => removeLogo(deps.app, labelOf(request), metadataOf(request)),
  );
};
