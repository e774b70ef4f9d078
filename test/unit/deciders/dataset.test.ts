import { describe, it } from 'vitest';
import { type DatasetFacts, datasetDecider } from '../../../src/domain/dataset/decider.ts';
import type { DatasetEvent } from '../../../src/domain/dataset/events.ts';
import { labelImagesDecider } from '../../../src/domain/label-images/decider.ts';
import type { LabelImageEvent } from '../../../src/domain/label-images/events.ts';
import { LABEL_MAXIMUMS } from '../../../src/domain/shared/maximums.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const labelId = '22222222-2222-4222-8222-222222222222';
const datasetId = '33333333-3333-4333-8333-333333333333';
const at = new Date('2026-11-27T10:00:00.000Z');
const iso = at.toISOString();
const facts: DatasetFacts = {
  datasetId,
  labelId,
  format: 'csv',
  sha256: 'a'.repeat(64),
  bytes: 1234,
  rows: 10,
  fields: ['firstName', 'url'],
  storageKey: `${labelId}/${datasetId}.sealed`,
};
const uploaded: DatasetEvent = { type: 'DatasetUploaded', data: { ...facts, uploadedAt: iso } };
const erased: DatasetEvent = { type: 'DatasetErased', data: { labelId, datasetId, erasedAt: iso } };
const erase = { type: 'EraseDataset' as const, labelId, datasetId, at };

describe('data set decider', () => {
  const spec = specFor(datasetDecider);
  it('records a data set once, by its facts (never its rows)', () => {
    spec([]).when({ type: 'RecordDataset', facts, at }).thenEvents([uploaded]);
    spec([uploaded]).when({ type: 'RecordDataset', facts, at }).thenEvents([]);
  });
  it('erases a kept data set once; an unknown one is not found', () => {
    spec([uploaded]).when(erase).thenEvents([erased]);
    spec([uploaded, erased]).when(erase).thenEvents([]);
    spec([]).when(erase).thenFails('dataset_not_found');
  });
});

describe('label images decider', () => {
  const spec = specFor(labelImagesDecider);
  const image = { type: 'image/png', sha256: 'b'.repeat(64), bytes: 99 };
  const stored = (sha256: string): LabelImageEvent => ({
    type: 'LabelImageStored',
    data: { labelId, name: 'logo', ...image, sha256, storedAt: iso },
  });
  const store = (sha256: string) => ({
    type: 'StoreLabelImage' as const,
    labelId,
    name: 'logo',
    image: { ...image, sha256 },
    at,
  });
  it('names an image; the same bytes again change nothing, other bytes name anew', () => {
    spec([])
      .when(store(image.sha256))
      .thenEvents([stored(image.sha256)]);
    spec([stored(image.sha256)])
      .when(store(image.sha256))
      .thenEvents([]);
    spec([stored(image.sha256)])
      .when(store('c'.repeat(64)))
      .thenEvents([stored('c'.repeat(64))]);
  });
  it('holds at most LABEL_MAXIMUMS.images names: one more is refused, a name it has is replaced', () => {
    const full = Array.from(
      { length: LABEL_MAXIMUMS.images },
      (_, i): LabelImageEvent => ({
        type: 'LabelImageStored',
        data: { labelId, name: `n${i}`, ...image, storedAt: iso },
      }),
    );
    spec(full).when(store(image.sha256)).thenFails('limit_reached');
    spec(full)
      .when({ ...store('c'.repeat(64)), name: 'n7' })
      .thenEvents([
        {
          type: 'LabelImageStored',
          data: { labelId, name: 'n7', ...image, sha256: 'c'.repeat(64), storedAt: iso },
        },
      ]);
  });
  it('removes a name it has; a name it has not (constructor included) is not found', () => {
    const removed: LabelImageEvent = {
      type: 'LabelImageRemoved',
      data: { labelId, name: 'logo', removedAt: iso },
    };
    spec([stored(image.sha256)])
      .when({ type: 'RemoveLabelImage', labelId, name: 'logo', at })
      .thenEvents([removed]);
    spec([stored(image.sha256), removed])
      .when({ type: 'RemoveLabelImage', labelId, name: 'logo', at })
      .thenFails('image_not_found');
    spec([])
      .when({ type: 'RemoveLabelImage', labelId, name: 'constructor', at })
      .thenFails('image_not_found');
  });
});
