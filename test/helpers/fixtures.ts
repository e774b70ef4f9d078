import { expect } from 'vitest';
import type { client, TestApp } from './app.ts';

type Call = ReturnType<typeof client>;

export interface Label {
  labelId: string;
  partnerId: number;
  adminApiKey: string;
  fulfillmentApiKey: string;
}

export async function newLabel(call: Call, t: TestApp, name: string): Promise<Label> {
  const r = await call('POST', '/operator/labels', { key: t.operatorKey, body: { name } });
  expect(r.status).toBe(201);
  return r.body;
}

export async function newIntegration(
  call: Call,
  t: TestApp,
  adminKey: string,
  offering: boolean,
): Promise<{ id: string; apiKey: string }> {
  const r = await call('POST', '/api/shop-integration', {
    key: adminKey,
    body: { name: 'Shop', shopSystem: 'test', shopUrl: 'https://shop.example' },
  });
  expect(r.status).toBe(201);
  if (offering) {
    const p = await call('PUT', `/operator/shop-integration/${r.body.id}/permissions`, {
      key: t.operatorKey,
      body: { permissions: ['offering'] },
    });
    expect(p.status).toBe(200);
  }
  return { id: r.body.id, apiKey: r.body.apiKey };
}

/** Waits until every projection has seen every event appended so far. */
export async function settled(t: TestApp): Promise<void> {
  const head = await t.app.store.headPosition();
  for (const name of t.app.runner.names) {
    expect(await t.app.runner.waitFor(name, head, 20_000)).toBe(true);
  }
}

/** Polls an import's progress until it is completed. */
export async function importDone(call: Call, path: string, key: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call('GET', path, { key });
    if (r.status === 200 && r.body.status === 'completed') return r.body;
    if (Date.now() > deadline) throw new Error(`import not done: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

export const config = (sku: string, extra: Record<string, unknown> = {}) => ({
  sku,
  baseSKU: sku.split('-')[0],
  skuGroup: 'group',
  name: `Product ${sku}`,
  printMethod: 'screen',
  printPosition: 'front',
  printPositions: ['front', 'back'],
  printColors: 2,
  productColor: 'white',
  supplierPrintMethodName: 'Screen print',
  supplierPrintMethodCode: 'SP',
  supplierPrintAreaCodes: ['FRONT'],
  supplierPrintAreaNames: ['Front'],
  printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 80, heightMm: 50 }],
  published: true,
  ...extra,
});

export async function importCatalog(call: Call, t: TestApp, supplier: string, configs: unknown[]) {
  const r = await call('POST', `/operator/catalog/${supplier}`, {
    key: t.operatorKey,
    body: configs,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const done = await importDone(
    call,
    `/operator/catalog/imports/${r.body.importId}`,
    t.operatorKey,
  );
  await settled(t);
  return done;
}
