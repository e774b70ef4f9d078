import { z } from 'zod';
import { currencySchema, moneySchema } from '../shared/money.ts';

/** Printable ASCII without spaces; `%` and `_` allowed (searches treat them literally). */
export const skuSchema = z
  .string()
  .regex(/^[\x21-\x7E]{1,100}$/, 'an SKU is 1-100 printable ASCII characters without spaces');

const text = (max: number) => z.string().max(max);

/** One limit for a printshop SKU group's name and for the slug made of it (skuGroup). */
export const GROUP_NAME_MAX = 200;

export const printAreaSchema = z
  .object({
    code: z.string().min(1).max(50),
    name: text(200),
    widthMm: z.number().positive().max(5000),
    heightMm: z.number().positive().max(5000),
  })
  .strict()
  .meta({ id: 'PrintArea', description: 'a print area of the product, in millimetres' });

export type PrintArea = z.infer<typeof printAreaSchema>;

/** A supplier's list price of a configuration, from a catalogue import. */
export const listPriceSchema = z
  .object({
    minQuantity: z.number().int().min(1).max(10_000_000),
    unitPrice: moneySchema,
    setupPrice: moneySchema.optional(),
    currency: currencySchema,
  })
  .strict()
  .meta({ id: 'ListPrice', description: "a supplier's list price, from a quantity on" });

/**
 * A product configuration without its identity (supplier, SKU). `prices` are the
 * supplier's list prices (a label's own prices, imported by its admin, come first when
 * a label has some for the SKU).
 */
export const configurationSchema = z
  .object({
    baseSKU: text(100).default(''),
    // a printshop group's slug: as long as the group name it is made of
    skuGroup: text(GROUP_NAME_MAX).default(''),
    name: text(300).default(''),
    printMethod: text(100).default(''),
    printPosition: text(100).default(''),
    printPositions: z.array(text(100)).max(100).default([]),
    printColors: z.number().int().min(0).max(2_147_483_647).default(0),
    productColor: text(100).default(''),
    supplierPrintMethodName: text(200).default(''),
    supplierPrintMethodCode: text(100).default(''),
    supplierPrintAreaCodes: z.array(text(100)).max(100).default([]),
    supplierPrintAreaNames: z.array(text(200)).max(100).default([]),
    printAreas: z.array(printAreaSchema).max(50).default([]),
    published: z.boolean().default(true),
    // added later: configurations imported before have none
    prices: z.array(listPriceSchema).max(100).default([]),
  })
  .strict();

export type Configuration = z.infer<typeof configurationSchema>;

// letters that Unicode does not decompose into a base letter plus marks
const LATIN: Record<string, string> = {
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  ß: 'ss',
  đ: 'd',
  ł: 'l',
  þ: 'th',
  ð: 'd',
  ı: 'i',
};

/** Group names map to a slug used as skuGroup: lowercase a-z0-9 and dashes. */
export function slugify(groupName: string): string {
  return groupName
    .toLowerCase()
    .replace(/[øæœßđłþðı]/g, (c) => LATIN[c] ?? c)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
