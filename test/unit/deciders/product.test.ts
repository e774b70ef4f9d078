import { describe, expect, it } from 'vitest';
import { configurationSchema, slugify } from '../../../src/domain/product/configuration.ts';
import { productDecider } from '../../../src/domain/product/decider.ts';
import type { ProductEvent } from '../../../src/domain/product/events.ts';
import { specFor } from '../../helpers/decider-spec.ts';

const given = specFor(productDecider);
const configuration = configurationSchema.parse({ name: 'Mug' });
const importId = '11111111-1111-4111-8111-111111111111';
const imported: ProductEvent = {
  type: 'ProductConfigurationImported',
  data: { supplier: 'printshop', sku: 'OLD', configuration, importId },
};
const renamed: ProductEvent = {
  type: 'ProductSkuRenamed',
  data: { supplier: 'printshop', sku: 'OLD', newSku: 'NEW' },
};

describe('slugify', () => {
  it.each([
    ['Mug Classic (Ø 8 cm)!', 'mug-classic-o-8-cm'],
    ['  Tote  bag  ', 'tote-bag'],
    ['Crème brûlée', 'creme-brulee'],
    ['Straße', 'strasse'],
    ['---', ''],
  ])('%s -> %s', (name, slug) => expect(slugify(name)).toBe(slug));
});

describe('product decider', () => {
  it('adds a new SKU once; a second add is a conflict', () => {
    const add = {
      type: 'AddConfiguration' as const,
      supplier: 'printshop',
      sku: 'OLD',
      configuration,
      importId,
    };
    given([]).when(add).thenEvents([imported]);
    given([imported]).when(add).thenFails('sku_exists');
  });

  it('stages a rename once', () => {
    const stage = { type: 'StageRename' as const, sku: 'OLD', newSku: 'NEW' };
    given([imported])
      .when(stage)
      .thenEvents([
        {
          type: 'ProductSkuRenameStaged',
          data: { supplier: 'printshop', sku: 'OLD', newSku: 'NEW' },
        },
      ]);
    given([
      imported,
      {
        type: 'ProductSkuRenameStaged',
        data: { supplier: 'printshop', sku: 'OLD', newSku: 'NEW' },
      },
    ])
      .when(stage)
      .thenEvents([]);
  });

  it('cannot rename an SKU that is unknown or renamed away', () => {
    given([]).when({ type: 'PublishRename', sku: 'OLD', newSku: 'NEW' }).thenFails('sku_not_found');
    given([imported, renamed])
      .when({ type: 'PublishRename', sku: 'OLD', newSku: 'NEWER' })
      .thenFails('sku_not_found');
  });

  it('refuses to rename onto a live SKU, but lets the same rename retry', () => {
    const receive = {
      type: 'ReceiveRename' as const,
      supplier: 'printshop',
      sku: 'NEW',
      oldSku: 'OLD',
      configuration,
    };
    const arrived: ProductEvent = {
      type: 'ProductConfigurationRenamedFrom',
      data: { supplier: 'printshop', sku: 'NEW', oldSku: 'OLD', configuration },
    };
    given([]).when(receive).thenEvents([arrived]);
    given([arrived]).when(receive).thenEvents([]);
    given([{ ...imported, data: { ...imported.data, sku: 'NEW' } }])
      .when(receive)
      .thenFails('sku_exists');
  });
});
