import { z } from 'zod';

/** Which print file (by content) and which of its pages. */
export const previewQuery = z
  .object({
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex digits'),
    page: z.coerce.number().int().min(1).max(100).default(1),
  })
  .strict();
