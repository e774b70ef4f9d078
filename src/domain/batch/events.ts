import { z } from 'zod';
import { barcodeSchema } from '../order/events.ts';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

/**
 * How the pieces are laid out: a grid of cards with cut marks, or nested shapes cut by a plotter.
 */
export const BATCH_MODES = ['step-repeat', 'gang'] as const;

/**
 * What the press prints on: a cut sheet, or a roll cut to length (`heightMm` its longest piece).
 */
export const mediaSchema = z.object({
  kind: z.enum(['sheet', 'roll']),
  /** the preset it came from, if any */
  preset: z.string().optional(),
  widthMm: z.number().positive(),
  heightMm: z.number().positive(),
});
export type Media = z.infer<typeof mediaSchema>;

/** How a batch is imposed, as asked: every replay imposes with exactly these. */
export const batchSpecSchema = z.object({
  mode: z.enum(BATCH_MODES),
  media: mediaSchema,
  gutterMm: z.number().min(0),
  marginMm: z.number().min(0),
  allowRotation: z.boolean(),
  /** each item's quantity in copies, or one copy of each */
  copies: z.enum(['quantity', 'one']),
  /**
   * `cut-and-stack`: one variable item's records in a grid whose every position, once the
   * pile of sheets is cut, is a stack of consecutive records (absent: laid out to fill)
   */
  imposition: z.enum(['cut-and-stack']).optional(),
});
export type BatchSpec = z.infer<typeof batchSpecSchema>;

const refusalSchema = z.object({ orderItemId: z.string(), code: z.string(), reason: z.string() });
export type Refusal = z.infer<typeof refusalSchema>;

/**
 * Which items a batch asked for: the candidates, and what was refused at once. v2: the spec may say
 * cut-and-stack (a v1 spec never does).
 */
export const BatchRequested = defineEvent(
  'BatchRequested',
  3,
  z.object({
    batchId: z.uuid(),
    labelId: z.uuid(),
    /**
     * v3: the facility whose press run it is (absent: the label's own shop floor, as every v2
     * batch)
     */
    facilityId: z.uuid().optional(),
    spec: batchSpecSchema,
    candidates: z.array(z.object({ orderItemId: z.uuid(), stream: z.string() })),
    refused: z.array(refusalSchema),
    /** a request over the API, or one of the label's batching rules */
    source: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('request') }),
      z.object({ kind: z.literal('rule'), rule: z.string() }),
    ]),
    requestedAt: z.iso.datetime(),
  }),
  { 1: (data) => data, 2: (data) => data },
);

/** An item as the batch took it: the very print file it imposes, by content. */
export const batchItemSchema = z.object({
  orderItemId: z.uuid(),
  stream: z.string(),
  orderId: z.string(),
  itemId: z.string(),
  sku: z.string(),
  quantity: z.number().int(),
  copies: z.number().int().min(1),
  printMethod: z.string(),
  file: z.object({ storageKey: z.string(), sha256: z.string(), pages: z.number().int() }),
  /** a variable item's records (its file holds them in order) */
  records: z.number().int().optional(),
  barcode: barcodeSchema,
  preflight: z.object({
    plates: z.array(z.string()),
    maxInkCoverage: z.number(),
    minDpi: z.number().optional(),
  }),
});
export type BatchItem = z.infer<typeof batchItemSchema>;

/**
 * The items the batch holds (each marked batched on its order), and those it could not take. v2: an
 * item may say how many records its file holds.
 */
export const BatchItemsClaimed = defineEvent(
  'BatchItemsClaimed',
  2,
  z.object({
    items: z.array(batchItemSchema),
    refused: z.array(refusalSchema),
    printMethod: z.string().nullable(),
    /** the plates its items print: process, or the spot inks they share */
    inkSet: z.string().nullable(),
    outputProfile: z.object({ sha256: z.string(), description: z.string() }).nullable(),
    claimedAt: z.iso.datetime(),
  }),
  // a v1 item was never a variable item's records
  { 1: (data) => data },
);

export const placementSchema = z.object({
  orderItemId: z.uuid(),
  copy: z.number().int(),
  /** the print file's page (its print area), from 1 */
  page: z.number().int(),
  /** the piece with its bleed, in millimetres from the sheet's top left, as placed */
  xMm: z.number(),
  yMm: z.number(),
  widthMm: z.number(),
  heightMm: z.number(),
  rotated: z.boolean(),
});
export type SheetPlacement = z.infer<typeof placementSchema>;

export const sheetSchema = z.object({
  n: z.number().int(),
  storageKey: z.string(),
  sha256: z.string(),
  bytes: z.number().int(),
  /** the sheet as cut: a roll's piece is as long as what is on it */
  widthMm: z.number(),
  heightMm: z.number(),
  utilisation: z.number(),
  placements: z.array(placementSchema),
});
export type Sheet = z.infer<typeof sheetSchema>;
const storedFileSchema = z.object({ storageKey: z.string(), sha256: z.string() });

/** The sheets, the job ticket and the job sheet, stored by content, each sheet preflighted. */
export const BatchImposed = defineEvent(
  'BatchImposed',
  1,
  z.object({
    sheets: z.array(sheetSchema),
    lowerBound: z.number().int(),
    utilisation: z.number(),
    heuristic: z.string(),
    ticket: storedFileSchema,
    jobSheet: storedFileSchema,
    warnings: z.array(z.string()),
    imposedAt: z.iso.datetime(),
  }),
);

/** Nothing could be imposed (no item taken, a piece too large, a sheet failing its preflight). */
export const BatchImpositionFailed = defineEvent(
  'BatchImpositionFailed',
  1,
  z.object({ reason: z.string(), failedAt: z.iso.datetime() }),
);

/** The batch's files were laid whole into the label's hot folder. */
export const BatchDelivered = defineEvent(
  'BatchDelivered',
  1,
  z.object({ location: z.string(), files: z.array(z.string()), deliveredAt: z.iso.datetime() }),
);

/** A sheet's slug barcode was scanned at the press: its items are printed. */
export const BatchSheetPrinted = defineEvent(
  'BatchSheetPrinted',
  1,
  z.object({ n: z.number().int(), station: z.string().optional(), printedAt: z.iso.datetime() }),
);

/** The batch was called off: its items not printed yet are ready again. */
export const BatchCancelled = defineEvent(
  'BatchCancelled',
  1,
  z.object({ reason: z.string().optional(), cancelledAt: z.iso.datetime() }),
);

export const BatchReplayRequested = defineEvent(
  'BatchReplayRequested',
  1,
  z.object({ replayId: z.uuid(), requestedAt: z.iso.datetime() }),
);

/** The batch imposed again from its events: each sheet's bytes against the recorded ones. */
export const BatchReplayed = defineEvent(
  'BatchReplayed',
  1,
  z.object({
    replayId: z.uuid(),
    matches: z.boolean(),
    sheets: z.array(z.object({ n: z.number().int(), expected: z.string(), actual: z.string() })),
    replayedAt: z.iso.datetime(),
  }),
);

export type BatchEvent =
  | EventOf<typeof BatchRequested>
  | EventOf<typeof BatchItemsClaimed>
  | EventOf<typeof BatchImposed>
  | EventOf<typeof BatchImpositionFailed>
  | EventOf<typeof BatchDelivered>
  | EventOf<typeof BatchSheetPrinted>
  | EventOf<typeof BatchCancelled>
  | EventOf<typeof BatchReplayRequested>
  | EventOf<typeof BatchReplayed>;

export const batchEvents = new EventRegistry<BatchEvent>([
  BatchRequested,
  BatchItemsClaimed,
  BatchImposed,
  BatchImpositionFailed,
  BatchDelivered,
  BatchSheetPrinted,
  BatchCancelled,
  BatchReplayRequested,
  BatchReplayed,
]);

export const batchStream = (batchId: string) => `Batch-${batchId}`;

/**
 * What a sheet's slug barcode holds: "B", the batch id's first 12 hex digits, "S" and the
 * sheet's number. Short enough to scan from a slug at 0.33 mm a module.
 */
export const sheetCode = (batchId: string, n: number) => `${batchCode(batchId)}S${n}`;
export const batchCode = (batchId: string) =>
  `B${batchId.replace(/-/g, '').slice(0, 12).toUpperCase()}`;
export const SHEET_CODE = /^B([0-9A-F]{12})S([1-9][0-9]{0,3})$/;

/**
 * A label's rule that opens batches by itself: the ready items it takes (a print method,
 * a SKU, one facility's), how they are imposed, and when: every `everyMinutes` (when any
 * item waits), and/or as soon as they would fill a sheet. A rule of a facility opens that
 * facility's press runs, of its own items.
 */
export const batchingRuleSchema = z.object({
  name: z.string(),
  filter: z.object({
    printMethod: z.string().optional(),
    sku: z.string().optional(),
    facilityId: z.uuid().optional(),
  }),
  spec: batchSpecSchema,
  everyMinutes: z.number().int().nullable(),
  whenSheetFull: z.boolean(),
});
export type BatchingRule = z.infer<typeof batchingRuleSchema>;

const PROCESS = new Set(['Cyan', 'Magenta', 'Yellow', 'Black']);

/** The plates an item prints, as a batch compares them: process colours, or its spot inks. */
export const inkSetOf = (plates: string[]) => {
  const spots = plates.filter((p) => !PROCESS.has(p)).sort();
  return spots.length ? `spots: ${spots.join(', ')}` : 'process (CMYK)';
};
