import { z } from 'zod';

/** A value encrypted with a key kept outside the event store (AES-256-GCM). */
export const encryptedSchema = z.object({
  alg: z.literal('A256GCM'),
  iv: z.string(),
  data: z.string(),
  tag: z.string(),
});
export type Encrypted = z.infer<typeof encryptedSchema>;
