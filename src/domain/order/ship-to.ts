import { z } from 'zod';

/* The recipient of an order as a client sends it (checked per country in src/app/addresses.ts). */

const line = (max: number) => z.string().trim().min(1).max(max);

export const shipToSchema = z
  .object({
    name: line(200),
    company: line(200).optional(),
    line1: line(200),
    line2: line(200).optional(),
    city: line(100),
    region: line(100)
      .optional()
      .describe('the state, province or region, where the country uses one (its code or its name)'),
    postalCode: line(20),
    country: z.string().describe('ISO 3166-1 alpha-2'),
    phone: z
      .string()
      .trim()
      .regex(/^\+?[0-9 ()./-]{3,30}$/, 'digits, spaces and + ( ) . / -')
      .optional(),
    email: z.email().max(254).optional(),
  })
  .strict()
  .meta({
    id: 'ShipTo',
    example: {
      name: 'Erika Mustermann',
      line1: 'Hauptstraße 5',
      city: 'Berlin',
      postalCode: '10115',
      country: 'DE',
    },
  });
export type ShipTo = z.infer<typeof shipToSchema>;
