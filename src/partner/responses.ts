import { z } from 'zod';
import { partnerUserIdSchema } from '../domain/partner-user/events.ts';

/** The partner's user record; only `id` is required, and it must be there. */
export const partnerUserSchema = z.object({
  id: z.union([partnerUserIdSchema, z.number().int().transform(String)]),
  firstName: z.string().max(200).optional().nullable(),
  lastName: z.string().max(200).optional().nullable(),
  userName: z.string().max(320).optional().nullable(),
});
export type PartnerUser = z.infer<typeof partnerUserSchema>;

/** The texts of the modal dialog after a forgot-password request. */
export const forgotPasswordResultSchema = z.object({
  header: z.string().max(1000),
  body: z.string().max(10_000),
});

/** What a partner may send with a failure. */
export const partnerErrorSchema = z.object({
  message: z.string().max(2000).optional(),
  code: z.string().max(200).optional(),
});
