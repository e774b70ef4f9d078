import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { datasetCount } from '#projections/datasets';
import type { DatasetFormat, ParsedDataset } from '../datasets/parse.ts';
import { destroyOwnerKey, ensureOwnerKey, ownerKey } from '../db/encryption-keys.ts';
import { type DatasetFacts, datasetAggregate } from '../domain/dataset/decider.ts';
import { datasetStream } from '../domain/dataset/events.ts';
import { projectAggregate } from '../domain/project/decider.ts';
import { projectStream } from '../domain/project/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { refuseOverMaximum } from '../domain/shared/maximums.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { JobFailedError } from '../print/errors.ts';
import { JobCrashedError, JobDeadlineError } from '../print/process-pool.ts';
import type { DatasetCheck } from '../print/vdp/check.ts';
import type { DatasetRef } from '../print/vdp/jobs.ts';
import { storeAt } from '../storage/location.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';
import { addingTo } from './label-collections.ts';
import { labelImagesNow } from './label-images.ts';

const notFound = () => new DomainError('not_found', 'data set not found', 'dataset_not_found');

/**
 * What a refused data set says: the parser's words (row and problem), or why it could not be read.
 */
function datasetFailure(err: unknown): Error {
  const invalid = (message: string) => new DomainError('invalid', message, 'invalid_dataset');
  if (err instanceof JobFailedError && err.original === 'DatasetProblem')
    return invalid(err.message);
  if (err instanceof JobDeadlineError)
    return invalid(`the data set took longer than ${err.seconds} s to read`);
  if (err instanceof JobCrashedError)
    return invalid('the data set could not be read: it needed more memory than one may take');
  return err as Error;
}

/**
 * Takes a data set in (POST /api/datasets): a label at its maximum is refused before the
 * body is read; `receive` gives the body in a file of this machine, which is parsed and
 * sealed with a key of its own in an image process, then recorded. A data set that
 * cannot be read, or one past the maximum after all (a race of the label's uploads),
 * records nothing and keeps no key and no sealed rows.
 */
export async function uploadDataset(
  ctx: AppContext,
  labelId: string,
  format: DatasetFormat,
  receive: <T>(use: (file: string) => Promise<T>) => Promise<T>,
  metadata: EventMetadata,
): Promise<{ datasetId: string; rows: number; fields: string[]; sha256: string }> {
  refuseOverMaximum('datasets', await datasetCount(ctx.pool, labelId), 1, ctx.maximums.datasets);
  return receive((file) => takeDataset(ctx, labelId, format, file, metadata));
}

async function takeDataset(
  ctx: AppContext,
  labelId: string,
  format: DatasetFormat,
  file: string,
  metadata: EventMetadata,
): Promise<{ datasetId: string; rows: number; fields: string[]; sha256: string }> {
  const datasetId = randomUUID();
  const storageKey = `${labelId}/${datasetId}.sealed`;
  const key = await ensureOwnerKey(ctx.pool, datasetId);
  let parsed: ParsedDataset;
  try {
    parsed = await ctx.variableData.ingest(labelId, {
      file,
      format,
      dataset: { datasetId, storageKey, key },
      stores: ctx.stores,
    });
  } catch (err) {
    await destroyOwnerKey(ctx.pool, datasetId);
    throw datasetFailure(err);
  } finally {
    await rm(file, { force: true });
  }
  const facts: DatasetFacts = {
    datasetId,
    labelId,
    format,
    sha256: parsed.sha256,
    bytes: parsed.bytes,
    rows: parsed.rows,
    fields: parsed.fields,
    storageKey,
  };
  try {
    await addingTo(
      ctx.maximums,
      labelId,
      'datasets',
      () => datasetCount(ctx.pool, labelId),
      async () => {
        const r = await handleCommand(
          ctx.store,
          datasetAggregate,
          datasetStream(labelId, datasetId),
          { type: 'RecordDataset', facts, at: new Date() },
          { ...metadata, labelId },
        );
        // the next one counts this one
        await ctx.readModels.seen('datasets', r.appended?.position);
      },
    );
  } catch (err) {
    if (err instanceof DomainError && err.code === 'limit_reached') {
      await destroyOwnerKey(ctx.pool, datasetId);
      await (await storeAt(ctx.stores, 'datasets')).remove(storageKey, new Date());
    }
    throw err;
  }
  return { datasetId, rows: parsed.rows, fields: parsed.fields, sha256: parsed.sha256 };
}

/** A data set of the label that can still be read; another label's, or an erased one, is 404. */
export async function keptDataset(ctx: AppContext, labelId: string, datasetId: string) {
  const state = await loadState(ctx.store, datasetAggregate, datasetStream(labelId, datasetId));
  if (state.status === 'none' || state.facts.labelId !== labelId) throw notFound();
  if (state.status === 'erased')
    throw new DomainError('not_found', 'the data set was erased', 'dataset_erased');
  return { ...state.facts, uploadedAt: state.uploadedAt };
}

/** Where a data set's rows are and the key that opens them (for an image process). */
export async function datasetRef(
  ctx: Pick<AppContext, 'pool'>,
  facts: Pick<DatasetFacts, 'datasetId' | 'storageKey'>,
): Promise<DatasetRef> {
  const key = await ownerKey(ctx.pool, facts.datasetId);
  if (!key) throw new DomainError('not_found', 'the data set was erased', 'dataset_erased');
  return { datasetId: facts.datasetId, storageKey: facts.storageKey, key };
}

/**
 * Checks every row of a data set against a project's design (POST
 * /api/datasets/{id}/check), in an image process: what would not print, row by row.
 */
export async function checkDataset(
  ctx: AppContext,
  labelId: string,
  datasetId: string,
  projectId: string,
): Promise<DatasetCheck> {
  const facts = await keptDataset(ctx, labelId, datasetId);
  const project = await loadState(ctx.store, projectAggregate, projectStream(projectId));
  if (project.status !== 'active' || project.labelId !== labelId)
    throw new DomainError('not_found', 'project not found', 'project_not_found');
  return checkAgainst(ctx, labelId, facts, project.content.design);
}

/** A data set's rows against a design, with the label's images as they are now. */
export async function checkAgainst(
  ctx: AppContext,
  labelId: string,
  facts: Pick<DatasetFacts, 'datasetId' | 'storageKey'>,
  design: Parameters<AppContext['variableData']['check']>[1]['design'],
): Promise<DatasetCheck> {
  const { state } = await labelImagesNow(ctx.store, labelId);
  return ctx.variableData.check(labelId, {
    dataset: await datasetRef(ctx, facts),
    stores: ctx.stores,
    design,
    images: Object.keys(state.images),
  });
}

/**
 * Erases a data set (DELETE /api/datasets/{id}): its key is destroyed, so no copy of its
 * rows can be read again (crypto-shredding), and its sealed file deleted. The orders
 * that printed it keep their print files; their records can no longer be drawn again.
 */
export async function eraseDataset(
  ctx: AppContext,
  labelId: string,
  datasetId: string,
  metadata: EventMetadata,
): Promise<void> {
  const state = await loadState(ctx.store, datasetAggregate, datasetStream(labelId, datasetId));
  if (state.status === 'none' || state.facts.labelId !== labelId) throw notFound();
  await destroyOwnerKey(ctx.pool, datasetId);
  await (await storeAt(ctx.stores, 'datasets')).remove(state.facts.storageKey, new Date());
  const r = await handleCommand(
    ctx.store,
    datasetAggregate,
    datasetStream(labelId, datasetId),
    { type: 'EraseDataset', labelId, datasetId, at: new Date() },
    { ...metadata, labelId },
  );
  // the label's next upload counts one fewer
  await ctx.readModels.seen('datasets', r.appended?.position);
}
