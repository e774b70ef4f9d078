import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  printSettings,
  resetOutputProfile,
  setOutputProfile,
  setPrintOptions,
} from '../../app/print-settings.ts';
import { metadataOf } from '../auth.ts';
import type { HttpDeps } from '../deps.ts';
import { HttpProblem } from '../problem.ts';
import { apiKeySecurity, problems, sha256Hex } from '../schemas/common.ts';

/** An ICC profile is a few hundred kilobytes to a few megabytes. */
const PROFILE_LIMIT = 8 * 1024 * 1024;
const ICC_TYPES = ['application/vnd.iccprofile', 'application/octet-stream'];

const settingsSchema = z
  .object({
    outputProfile: z
      .object({
        sha256: sha256Hex,
        description: z.string(),
        /** the bundled profile (Chemical proof, public domain) */
        default: z.boolean(),
      })
      .meta({
        id: 'OutputProfile',
        description: 'the CMYK output condition print files are made for',
      }),
    cropMarks: z.boolean(),
    maxInkCoverage: z.number().int().min(100).max(400),
  })
  .meta({ id: 'PrintSettings' });

const optionsBody = z
  .object({
    cropMarks: z.boolean().optional(),
    maxInkCoverage: z.number().int().min(100).max(400).optional(),
  })
  .strict()
  .refine((b) => b.cropMarks !== undefined || b.maxInkCoverage !== undefined, {
    message: 'give cropMarks or maxInkCoverage',
  })
  .meta({
    id: 'PrintOptions',
    example: { cropMarks: true, maxInkCoverage: 320 },
    minProperties: 1,
  });

/** The ICC file itself, under either media type it may be sent as. */
const iccBody = z.instanceof(Buffer).meta({
  type: 'string',
  format: 'binary',
  description: 'an ICC output (prtr) profile in CMYK, at most 8 MiB',
});

export interface PrintSettingsRoutes {
  deps: HttpDeps;
  /** where the routes live: `/print-settings` (admin) or `/labels/:labelId/print-settings` */
  path: string;
  params: z.ZodObject | undefined;
  labelOf: (request: FastifyRequest) => string;
  tags: string[];
}

/**
 * A label's print settings (its admin's under /api, any label's under /operator): the
 * CMYK output profile its print files are made for (uploaded as the ICC file itself),
 * crop marks and the coverage limit of the preflight. Orders take them when received.
 */
export const printSettingsRoutes: FastifyPluginAsyncZod<PrintSettingsRoutes> = async (
  app,
  { deps, path, params, labelOf, tags },
) => {
  // the profile is sent as it is, not in JSON (here only)
  app.addContentTypeParser(
    ICC_TYPES,
    { parseAs: 'buffer', bodyLimit: PROFILE_LIMIT },
    (_r, body, done) => done(null, body),
  );
  const withParams = params ? { params } : {};

  app.get(
    path,
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'The print settings: output profile, crop marks, coverage limit',
        ...withParams,
        response: { 200: settingsSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => printSettings(deps.app, labelOf(request)),
  );

  app.put(
    path,
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: "Crop marks and the preflight's total area coverage limit, for orders from now on",
        ...withParams,
        body: optionsBody,
        response: { 200: settingsSchema, ...problems(400, 401, 403, 404, 415) },
      },
    },
    async (request) =>
      setPrintOptions(deps.app, labelOf(request), request.body, metadataOf(request)),
  );

  app.put(
    `${path}/output-profile`,
    {
      bodyLimit: PROFILE_LIMIT,
      config: { bodyTypes: ICC_TYPES },
      schema: {
        tags,
        security: apiKeySecurity,
        summary:
          "The print shop's CMYK output profile (the ICC file as the body, application/vnd.iccprofile), for orders from now on",
        ...withParams,
        consumes: ICC_TYPES,
        body: iccBody,
        response: { 200: settingsSchema, ...problems(400, 401, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      if (!Buffer.isBuffer(request.body) || request.body.length === 0)
        throw new HttpProblem(400, 'invalid_icc_profile', 'send the ICC profile as the body');
      return setOutputProfile(deps.app, labelOf(request), request.body, metadataOf(request));
    },
  );

  app.delete(
    `${path}/output-profile`,
    {
      schema: {
        tags,
        security: apiKeySecurity,
        summary: 'Back to the bundled default output profile, for orders from now on',
        ...withParams,
        response: { 200: settingsSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => resetOutputProfile(deps.app, labelOf(request), metadataOf(request)),
  );
};
