import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

/**
 * A data set of a label (the rows of a variable item): its rows are personal data, kept
 * sealed with the data set's own key outside the log; events name it by the sha256 of the
 * bytes as they were sent, and carry only counts and field names, never a row.
 */
export const DatasetUploaded = defineEvent(
  'DatasetUploaded',
  1,
  z.object({
    datasetId: z.uuid(),
    labelId: z.uuid(),
    format: z.enum(['csv', 'ndjson']),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: z.number().int(),
    rows: z.number().int().min(1),
    fields: z.array(z.string()),
    /** where the sealed rows are kept (the datasets store) */
    storageKey: z.string(),
    uploadedAt: z.iso.datetime(),
  }),
);

/** The data set's key was destroyed and its sealed rows deleted: no row can be read again. */
export const DatasetErased = defineEvent(
  'DatasetErased',
  1,
  z.object({ datasetId: z.uuid(), labelId: z.uuid(), erasedAt: z.iso.datetime() }),
);

export type DatasetEvent = EventOf<typeof DatasetUploaded> | EventOf<typeof DatasetErased>;
export const datasetEvents = new EventRegistry<DatasetEvent>([DatasetUploaded, DatasetErased]);
export const datasetStream = (labelId: string, datasetId: string) =>
  `Dataset-${labelId}-${datasetId}`;
