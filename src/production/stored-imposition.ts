import { createHash } from 'node:crypto';
import type { BatchItem, BatchSpec, Sheet } from '../domain/batch/events.ts';
import { preflight } from '../print/preflight.ts';
import type { OutputProfile } from '../print/profiles.ts';
import { type StoreLocation, storeAt } from '../storage/location.ts';
import { batchFileKey, sheetFileName } from './batch-files.ts';
import { impose, sheetFacts } from './impose.ts';
import { renderJobSheet } from './job-sheet.ts';
import { jobTicket } from './xjdf.ts';

/**
 * A press run's imposition as a job of a pool process: it reads the items' print files
 * from the store, lays them out, draws and preflights every sheet, and puts the sheets,
 * the XJDF ticket and the job sheet in the store itself. The worker that asks handles no
 * file's bytes and spends no time on the layout or the drawing, whose cost grows with
 * the copies a client asked for (see "What runs where" in the design notes).
 */
export interface StoredImpositionJob {
  batchId: string;
  labelId: string;
  spec: BatchSpec;
  /** the batch's request time, ISO: every sheet's date */
  requestedAt: string;
  items: BatchItem[];
  profile: OutputProfile;
  stores: StoreLocation;
  /** false: only the sheets' hashes (a replay compares them), nothing stored or preflighted */
  keep: boolean;
}

export type StoredSheet = Sheet;

export interface StoredImposition {
  sheets: StoredSheet[];
  lowerBound: number;
  utilisation: number;
  heuristic: string;
  /** preflight failures of sheets ("sheet n: rule (detail)"): the batch fails */
  failures: string[];
  warnings: string[];
  ticket?: { storageKey: string; sha256: string };
  jobSheet?: { storageKey: string; sha256: string };
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export async function imposeStored(job: StoredImpositionJob): Promise<StoredImposition> {
  const printFiles = await storeAt(job.stores, 'print-files');
  const files = new Map<string, Uint8Array>();
  for (const item of job.items) {
    if (files.has(item.file.storageKey)) continue;
    const bytes = await printFiles.get(item.file.storageKey);
    if (!bytes || sha256(bytes) !== item.file.sha256)
      throw new Error(`the print file of ${item.itemId} is missing or changed`);
    files.set(item.file.storageKey, bytes);
  }
  const createdAt = new Date(job.requestedAt);
  const imposed = await impose({
    batchId: job.batchId,
    spec: job.spec,
    createdAt,
    items: job.items,
    files,
    profile: job.profile,
  });
  const base = {
    lowerBound: imposed.lowerBound,
    utilisation: imposed.utilisation,
    heuristic: imposed.heuristic,
  };
  const bare = ({ pdf: _pdf, ...rest }: (typeof imposed.sheets)[number]) => rest;
  if (!job.keep)
    return {
      ...base,
      sheets: imposed.sheets.map((s) => ({ ...bare(s), storageKey: '' })),
      failures: [],
      warnings: [],
    };
  const failures: string[] = [];
  const warnings: string[] = [];
  const facts = sheetFacts(job.items, job.spec);
  const sheets: StoredSheet[] = [];
  for (const s of imposed.sheets) {
    const report = await preflight(s.pdf, facts, {
      maxInkCoverage: Number.POSITIVE_INFINITY,
      inks: undefined,
    });
    for (const rule of report.rules)
      if (rule.result === 'failure') failures.push(`sheet ${s.n}: ${rule.rule} (${rule.detail})`);
      else if (rule.result === 'warning')
        warnings.push(`sheet ${s.n}: ${rule.rule} (${rule.detail})`);
    const storageKey = batchFileKey(job.labelId, job.batchId, sheetFileName(s.n), s.sha256);
    await printFiles.put(storageKey, s.pdf);
    sheets.push({ ...bare(s), storageKey });
  }
  if (failures.length) return { ...base, sheets, failures, warnings };
  const stored = async (name: string, bytes: Uint8Array) => {
    const sha = sha256(bytes);
    const storageKey = batchFileKey(job.labelId, job.batchId, name, sha);
    await printFiles.put(storageKey, bytes);
    return { storageKey, sha256: sha };
  };
  const ticket = Buffer.from(
    jobTicket({
      batchId: job.batchId,
      spec: job.spec,
      items: job.items,
      sheets,
      createdAt,
      sheetFile: sheetFileName,
    }),
  );
  const jobSheet = await renderJobSheet({
    batchId: job.batchId,
    spec: job.spec,
    items: job.items,
    sheets,
    lowerBound: imposed.lowerBound,
    createdAt,
  });
  return {
    ...base,
    sheets,
    failures,
    warnings,
    ticket: await stored('ticket.xjdf', ticket),
    jobSheet: await stored('job-sheet.pdf', jobSheet),
  };
}
