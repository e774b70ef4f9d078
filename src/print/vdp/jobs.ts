import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { type DatasetFormat, type ParsedDataset, parseDataset } from '../../datasets/parse.ts';
import { SealedDataset, SealedDatasetWriter } from '../../datasets/sealed-file.ts';
import type { Preflight } from '../../domain/order/events.ts';
import type { Design } from '../../domain/project/design.ts';
import { imageRef } from '../../domain/project/design.ts';
import { inScratchFolder } from '../../files/scratch.ts';
import { designImages, loadImage } from '../../storage/design-images.ts';
import { type StoreLocation, storeAt } from '../../storage/location.ts';
import { RenderError } from '../errors.ts';
import { preflight, preflightWarnings, recordedPreflight } from '../preflight.ts';
import { renderPreviews } from '../preview.ts';
import { profileOf, type RenderJob } from '../render-job.ts';
import { checkRows, type DatasetCheck } from './check.ts';
import { renderVariable, type VariableFile, type VariableItem } from './render.ts';

/**
 * The jobs of variable data, run in image processes (never in the service's own loop):
 * taking a data set in (parsing 50 MB is seconds of CPU), checking its rows, rendering
 * an item's PDF/VT file, and one record alone.
 */

/** Where a data set's sealed rows are and the key that opens them. */
export interface DatasetRef {
  datasetId: string;
  storageKey: string;
  /** the data set's own key (crosses to the child process only, never logged) */
  key: Uint8Array;
}

export interface IngestJob {
  /** the body as it arrived, in a file of this machine (the job deletes it) */
  file: string;
  format: DatasetFormat;
  dataset: DatasetRef;
  stores: StoreLocation;
}

/** Parses a data set, seals its rows with its key and puts them in the datasets store. */
export async function ingestDataset(job: IngestJob): Promise<ParsedDataset> {
  const key = Buffer.from(job.dataset.key);
  const parts: Buffer[] = [];
  const writer = new SealedDatasetWriter(key, job.dataset.datasetId, (b) => parts.push(b));
  try {
    const parsed = await parseDataset(createReadStream(job.file), job.format, (values) =>
      writer.add(values),
    );
    writer.finish(parsed.fields);
    await (await storeAt(job.stores, 'datasets')).put(job.dataset.storageKey, Buffer.concat(parts));
    return parsed;
  } finally {
    await rm(job.file, { force: true });
  }
}

/** The last data set opened in this process: a check, then a render, read it once. */
let opened: { key: string; dataset: SealedDataset } | undefined;
async function openDataset(stores: StoreLocation, ref: DatasetRef): Promise<SealedDataset> {
  const id = `${JSON.stringify(stores)}\n${ref.storageKey}`;
  if (opened?.key === id) return opened.dataset;
  const bytes = await (await storeAt(stores, 'datasets')).get(ref.storageKey);
  if (!bytes) throw new RenderError('the data set is gone (erased)', 'image_missing');
  const dataset = new SealedDataset(bytes, Buffer.from(ref.key), ref.datasetId);
  opened = { key: id, dataset };
  return dataset;
}

export interface CheckJob {
  dataset: DatasetRef;
  stores: StoreLocation;
  design: Pick<Design, 'areas'>;
  /** the names in the label's image store */
  images: string[];
}

export async function checkDataset(job: CheckJob): Promise<DatasetCheck> {
  return checkRows(job.design, await openDataset(job.stores, job.dataset), new Set(job.images));
}

/** A variable item's render as its order says: the item, its data set, the label's images then. */
export interface VariableJob {
  item: Omit<RenderJob['item'], 'createdAt'> & { createdAt: string };
  profile?: RenderJob['profile'];
  cropMarks: boolean;
  maxInkCoverage: number;
  dataset: DatasetRef;
  /** the label's images by name as they were at the sale: their type and sha256 */
  labelImages: [string, { type: string; sha256: string }][];
}

async function sourceOf(job: VariableJob, stores: StoreLocation) {
  const images = await storeAt(stores, 'images');
  const fixed = new Map(await designImages(images, job.item.design));
  const named = new Map(job.labelImages);
  const item: VariableItem = {
    ...job.item,
    createdAt: new Date(job.item.createdAt),
    profile: profileOf(job.profile),
    cropMarks: job.cropMarks,
  };
  return {
    item,
    source: {
      dataset: await openDataset(stores, job.dataset),
      loadImage: async (src: string) => fixed.get(src) ?? loadImage(images, src),
      labelImage: async (name: string) => {
        const ref = named.get(name);
        return ref ? loadImage(images, imageRef(ref.type, ref.sha256)) : undefined;
      },
    },
  };
}

export interface StoredVariableJob {
  job: VariableJob;
  stores: StoreLocation;
  /** put the file under `${keep}${sha256}.pdf`; absent, it is only hashed (replays) */
  keep?: string | undefined;
  /** only these records (a reprint of some); all when absent */
  records?: number[] | undefined;
}

export interface StoredVariable {
  file: {
    sha256: string;
    size: number;
    pages: number;
    records: number;
    warnings: string[];
    storageKey?: string;
  };
  preflight: Preflight;
}

/**
 * Renders a variable item's PDF/VT file into a file of this machine (never whole in
 * memory), puts it in the print-file store with `keep`, and preflights the first record
 * alone (its file has everything the records share).
 */
export async function renderVariableStored(job: StoredVariableJob): Promise<StoredVariable> {
  const { item, source } = await sourceOf(job.job, job.stores);
  // a render process killed in the middle leaves its folder: the next one sweeps it
  return inScratchFolder('vdp', async (dir) => {
    const file = path.join(dir, 'print.pdf');
    const fd = openSync(file, 'w');
    let rendered: VariableFile;
    try {
      rendered = await renderVariable(item, source, (b) => writeSync(fd, b), {
        ...(job.records ? { records: job.records } : {}),
      });
    } finally {
      closeSync(fd);
    }
    const first: Buffer[] = [];
    const sample = await renderVariable(item, source, (b) => first.push(b), {
      records: [job.records?.[0] ?? 1],
    });
    const report = await preflight(Buffer.concat(first), sample.facts, {
      maxInkCoverage: job.job.maxInkCoverage,
      inks: undefined,
    });
    const base = {
      sha256: rendered.sha256,
      size: rendered.bytes,
      pages: rendered.pages,
      records: rendered.records,
      // the preflight's warnings join the item's, as for an item of one record
      warnings: [...rendered.warnings, ...preflightWarnings(report)],
    };
    let storageKey: string | undefined;
    if (job.keep !== undefined) {
      storageKey = `${job.keep}${rendered.sha256}.pdf`;
      await (await storeAt(job.stores, 'print-files')).putFile(storageKey, file, rendered.sha256);
    }
    return {
      file: { ...base, ...(storageKey ? { storageKey } : {}) },
      preflight: recordedPreflight(report),
    };
  });
}

export interface RecordJob {
  job: VariableJob;
  stores: StoreLocation;
  record: number;
  as: 'pdf' | 'png';
}

/**
 * One record alone: its PDF/VT file (the shared part and the record, whose own bytes are
 * those of its part of the whole file), or a PNG of its first page, as an operator
 * browses records. `segmentSha256` is the hash of the record's own bytes.
 */
export async function variableRecord(
  job: RecordJob,
): Promise<{ bytes: Uint8Array; segmentSha256: string }> {
  const { item, source } = await sourceOf(job.job, job.stores);
  if (job.record < 1 || job.record > source.dataset.rows)
    throw new RenderError(`no record ${job.record} (1-${source.dataset.rows})`);
  const parts: Buffer[] = [];
  const rendered = await renderVariable(item, source, (b) => parts.push(b), {
    records: [job.record],
    hashRecords: new Set([job.record]),
  });
  const pdf = Buffer.concat(parts);
  const segmentSha256 = rendered.segmentSha256.get(job.record)!;
  if (job.as === 'pdf') return { bytes: pdf, segmentSha256 };
  const [png] = await renderPreviews(pdf);
  return { bytes: png!, segmentSha256 };
}

export interface ReprintedRecords {
  /** the whole file rendered again: its sha256 (the recorded file's, when nothing changed) */
  wholeSha256: string;
  /** the file of just the records, kept */
  file: { storageKey: string; sha256: string; pages: number; bytes: number };
  /** every record's bytes in that file are those of its part of the whole file */
  matched: boolean;
}

/**
 * A reprint of some records: the whole file rendered again (hashed, not kept) to compare
 * with the recorded one, and a file of just those records put in the print-file store;
 * each record's own bytes in it are compared with its part of the whole file.
 */
export async function reprintVariableStored(
  job: StoredVariableJob & { keep: string; records: number[] },
): Promise<ReprintedRecords> {
  const { item, source } = await sourceOf(job.job, job.stores);
  const wanted = new Set(job.records);
  const whole = await renderVariable(item, source, () => {}, { hashRecords: wanted });
  return inScratchFolder('vdp', async (dir) => {
    const file = path.join(dir, 'reprint.pdf');
    const fd = openSync(file, 'w');
    let part: VariableFile;
    try {
      part = await renderVariable(item, source, (b) => writeSync(fd, b), {
        records: job.records,
        hashRecords: wanted,
      });
    } finally {
      closeSync(fd);
    }
    const storageKey = `${job.keep}${part.sha256}.pdf`;
    await (await storeAt(job.stores, 'print-files')).putFile(storageKey, file, part.sha256);
    return {
      wholeSha256: whole.sha256,
      file: { storageKey, sha256: part.sha256, pages: part.pages, bytes: part.bytes },
      matched: job.records.every((r) => part.segmentSha256.get(r) === whole.segmentSha256.get(r)),
    };
  });
}
