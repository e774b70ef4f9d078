import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestApp, type TestApp } from '../helpers/app.ts';
import { config, editorUser, importDone, newIntegration, newLabel } from '../helpers/fixtures.ts';

/**
 * What a shop sees of a catalogue import, at every moment: once the import reads
 * completed, every configuration it holds is found by `sku/data` and usable in a
 * project, and `sku/data` and a project save agree (issue 21: in long runs a save was
 * refused as unknown_sku 250 ms after `sku/data` had found the SKU). Imports alternate
 * between publishing and withdrawing the same configurations while projects are saved in
 * a loop.
 */
describe('a catalogue import seen by sku/data and by project saves', () => {
  let t: TestApp;
  let call: ReturnType<typeof client>;
  let shopKey: string;
  let token: string;
  const skus = Array.from({ length: 6 }, (_, i) => `VIS-${i + 1}`);

  beforeAll(async () => {
    t = await startTestApp();
    call = client(t.url);
    const label = await newLabel(call, t, 'Visibility');
    shopKey = (await newIntegration(call, t, label.adminApiKey, true)).apiKey;
    token = (await editorUser(t, label.labelId, 'vis-user')).token;
  }, 120_000);
  afterAll(async () => t?.stop());

  const skuData = (sku: string) =>
    call('GET', `/api/offering/sku/data?supplier=supplier-a&sku=${sku}`, { key: shopKey });
  const save = (sku: string) =>
    call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${token}` },
      body: {
        name: sku,
        sku,
        supplier: 'supplier-a',
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [{ type: 'text', text: sku, x: 1, y: 1, fontSize: 10, color: '#000000' }],
            },
          ],
        },
      },
    });

  it('makes what an import holds usable the moment it reads completed, in every round', async () => {
    const disagreements: string[] = [];
    for (let round = 0; round < 4; round++) {
      const published = round % 2 === 0;
      // thousands of other configurations first: the read model of configurations has
      // much more to apply than the one of imports
      const r = await call('POST', '/operator/catalog/supplier-a', {
        key: t.operatorKey,
        body: [
          ...Array.from({ length: 3000 }, (_, i) => config(`FILL-${round}-${i}`)),
          ...skus.map((sku) => config(sku, { published })),
        ],
      });
      expect(r.status).toBe(202);
      // the import's progress is there right after its 202
      const progress = await call('GET', `/operator/catalog/imports/${r.body.importId}`, {
        key: t.operatorKey,
      });
      expect(progress.status, JSON.stringify(progress.body)).toBe(200);
      // a shop that saves projects while the import runs: answers may be either state,
      // but sku/data and the save that follows it must agree
      let importing = true;
      const during = (async () => {
        while (importing) {
          for (const sku of skus) {
            const found = await skuData(sku);
            const saved = await save(sku);
            const usable = found.status === 200 && !found.body.renamedTo;
            // a later import may withdraw it between the two calls: only a save refused
            // while sku/data went on finding it afterwards counts as a disagreement
            if (usable && saved.status === 400) {
              const again = await skuData(sku);
              if (again.status === 200 && (await save(sku)).status === 400)
                disagreements.push(`round ${round} ${sku} during the import`);
            }
          }
        }
      })();
      await importDone(call, `/operator/catalog/imports/${r.body.importId}`, t.operatorKey);
      importing = false;
      await during;
      // completed: every configuration as the import left it, at once, for both
      for (const sku of skus) {
        const found = await skuData(sku);
        const saved = await save(sku);
        if ((found.status === 200) !== published)
          disagreements.push(`round ${round} ${sku}: sku/data ${found.status} after completion`);
        if ((saved.status === 201) !== published)
          disagreements.push(
            `round ${round} ${sku}: save ${saved.status} ${saved.body?.code} after completion`,
          );
      }
    }
    expect(disagreements).toEqual([]);
  }, 240_000);
});
