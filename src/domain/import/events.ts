import { z } from 'zod';
import { configurationSchema, skuSchema } from '../product/configuration.ts';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

export const IMPORT_KINDS = ['catalog', 'printshop-skus'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

export const importItemSchema = z.object({ sku: skuSchema, configuration: configurationSchema });
export type ImportItem = z.infer<typeof importItemSchema>;

/**
 * A bulk import: catalog (configurations that replace what is there) or printshop SKUs
 * (new SKUs that must not exist). Its items travel in chunks so no event grows large;
 * the chunks are written before ImportRequested, so an import that exists is whole.
 */
export const ImportRequested = defineEvent(
  'ImportRequested',
  1,
  z.object({
    importId: z.uuid(),
    kind: z.enum(IMPORT_KINDS),
    supplier: z.string(),
    total: z.number().int(),
    chunkCount: z.number().int(),
    groups: z.number().int().optional(),
    requestedAt: z.iso.datetime(),
  }),
);

export const ImportChunkAdded = defineEvent(
  'ImportChunkAdded',
  1,
  z.object({ importId: z.uuid(), chunk: z.number().int(), items: z.array(importItemSchema) }),
);

export const ImportChunkApplied = defineEvent(
  'ImportChunkApplied',
  1,
  z.object({
    importId: z.uuid(),
    chunk: z.number().int(),
    created: z.number().int(),
    /** SKUs left out, with why (printshop SKUs that appeared meanwhile) */
    skipped: z.array(z.object({ sku: z.string(), reason: z.string() })),
  }),
);

export const ImportCompleted = defineEvent(
  'ImportCompleted',
  1,
  z.object({
    importId: z.uuid(),
    created: z.number().int(),
    skipped: z.number().int(),
    completedAt: z.iso.datetime(),
  }),
);

export type ImportEvent =
  | EventOf<typeof ImportRequested>
  | EventOf<typeof ImportChunkApplied>
  | EventOf<typeof ImportCompleted>;

export const importEvents = new EventRegistry<ImportEvent>([
  ImportRequested,
  ImportChunkApplied,
  ImportCompleted,
]);

export type ImportChunkEvent = EventOf<typeof ImportChunkAdded>;
export const importChunkEvents = new EventRegistry<ImportChunkEvent>([ImportChunkAdded]);

export const importStream = (importId: string) => `Import-${importId}`;
/** Each chunk in a stream of its own: the import's own stream stays small to fold. */
export const importChunkStream = (importId: string, chunk: number) =>
  `ImportChunk-${importId}-${chunk}`;
export const CHUNK_SIZE = 250;
