import { z } from 'zod';
import type { OfferingRow } from '#projections/offerings';
import type { PriceView } from '#projections/prices';
import { printAreaSchema } from '../../domain/product/configuration.ts';

/** A product configuration as a list item: exactly these fields. */
export const offeringItemSchema = z
  .object({
    sku: z.string(),
    baseSKU: z.string(),
    skuGroup: z.string(),
    printMethod: z.string(),
    printPosition: z.string(),
    printPositions: z.array(z.string()),
    printColors: z.number().int().min(0).max(2_147_483_647),
    productColor: z.string(),
    supplierPrintMethodName: z.string(),
    supplierPrintMethodCode: z.string(),
    supplierPrintAreaCodes: z.array(z.string()),
    supplierPrintAreaNames: z.array(z.string()),
  })
  .meta({ id: 'Offering', description: 'a product configuration as a list item' });

export const offeringSearchItemSchema = offeringItemSchema
  .extend({ supplier: z.string() })
  .meta({ id: 'OfferingMatch', description: 'a product configuration found by a partial SKU' });

/** The full product configuration. */
export const offeringDetailSchema = offeringSearchItemSchema
  .extend({
    name: z.string(),
    printAreas: z.array(printAreaSchema),
    published: z.boolean(),
    prices: z
      .array(
        z
          .object({
            minQuantity: z.number().int().min(1).max(1_000_000_000),
            unitPrice: z.string(),
            setupPrice: z.string().optional(),
            currency: z.string(),
          })
          .meta({
            id: 'Price',
            description: 'a price per unit from a quantity on, as a decimal string',
          }),
      )
      .describe(
        "the label's own prices where it imported some for this SKU, else the supplier's list prices",
      ),
    priceSource: z
      .enum(['label', 'list'])
      .describe(
        "label: the prices are the label's own; list: the supplier's list prices (or none)",
      ),
    renamedTo: z.string().optional().describe('set when the SKU was renamed; this is its new SKU'),
  })
  .meta({
    id: 'ProductConfiguration',
    description: 'the full product configuration of a complete SKU',
  });

export function toItem(row: OfferingRow): z.infer<typeof offeringItemSchema> {
  const c = row.config;
  return {
    sku: row.sku,
    baseSKU: c.baseSKU,
    skuGroup: c.skuGroup,
    printMethod: c.printMethod,
    printPosition: c.printPosition,
    printPositions: c.printPositions,
    printColors: c.printColors,
    productColor: c.productColor,
    supplierPrintMethodName: c.supplierPrintMethodName,
    supplierPrintMethodCode: c.supplierPrintMethodCode,
    supplierPrintAreaCodes: c.supplierPrintAreaCodes,
    supplierPrintAreaNames: c.supplierPrintAreaNames,
  };
}

export function toDetail(
  row: OfferingRow,
  labelPrices: PriceView[],
): z.infer<typeof offeringDetailSchema> {
  return {
    ...toItem(row),
    supplier: row.supplier,
    name: row.config.name,
    printAreas: row.config.printAreas,
    published: row.config.published && row.renamed_to === null,
    ...(labelPrices.length > 0
      ? { prices: labelPrices, priceSource: 'label' as const }
      : { prices: row.config.prices, priceSource: 'list' as const }),
    ...(row.renamed_to !== null ? { renamedTo: row.renamed_to } : {}),
  };
}
