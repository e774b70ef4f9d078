import { z } from 'zod';
import { orderIdSchema } from '../../domain/order/events.ts';

export const notificationBody = z
  .object({
    orderId: orderIdSchema,
    items: z
      .array(
        z
          .object({
            itemId: z.string().min(1).max(128),
            projectId: z.uuid({ message: 'must be a UUID' }).optional(),
            cartItemId: z.uuid({ message: 'must be a UUID' }).optional(),
            quantity: z.number().int().min(1).max(1_000_000),
          })
          .strict()
          .refine((i) => (i.projectId === undefined) !== (i.cartItemId === undefined), {
            message: 'name either a projectId or a cartItemId',
          }),
      )
      .min(1)
      .max(100),
    customer: z
      .object({ name: z.string().max(200).optional(), email: z.email().max(320).optional() })
      .strict()
      .optional(),
  })
  .strict()
  .meta({
    example: {
      orderId: 'SHOP-100234',
      items: [
        { itemId: 'line-1', projectId: '5f0e8a52-3c1a-4e47-9f57-0d5f4f1c9b11', quantity: 10 },
      ],
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    },
  });

export const notificationAnswer = z.object({
  orderId: z.string(),
  status: z.literal('accepted'),
  items: z.array(z.object({ itemId: z.string(), orderItemId: z.uuid() })),
});
