import { readFileSync } from 'node:fs';
import path from 'node:path';
import { http, labelWithShop } from '../../scripts/lib/demo-catalog.ts';
import type { ServiceStack } from './stack.ts';

/**
 * A label with a shop integration, an A6 card product, a user logged in through the
 * partner simulator, and one saved project of `design`: what a bench needs to send sale
 * notifications.
 */
export async function benchShop(
  stack: ServiceStack,
  area: { code: string; name: string; widthMm: number; heightMm: number },
  design: unknown,
) {
  const { base, operatorKey, dataDir } = stack;
  const port = Number(new URL(base).port);
  const call = http(base);
  const { label, shop } = await labelWithShop(
    call,
    operatorKey,
    { label: 'Bench', shop: 'Bench', shopSystem: 'bench', shopUrl: 'https://bench.example' },
    false,
  );
  await call('POST', '/operator/catalog/supplier-a', operatorKey, [
    { sku: 'A6-CARD', printMethod: 'digital', printColors: 4, printAreas: [area] },
  ]);
  const simKey = readFileSync(path.join(dataDir, 'partner-sim-api-key'), 'utf8').trim();
  const simUrl = `http://127.0.0.1:${port + 1}`;
  await call('POST', `/operator/labels/${label.labelId}/callbacks`, operatorKey, {
    production: { url: simUrl, apiKey: simKey },
    environment: 'production',
  });
  const saved = await editorProject(base, label.labelId, design);
  /** the shop's sale notification of a one-item order of the project */
  const notify = (orderId: string) =>
    call('POST', '/webhook/notifyorder', shop.apiKey, {
      orderId,
      items: [{ itemId: 'l1', projectId: saved, quantity: 1 }],
    });
  return { call, label, shop, projectId: saved, notify };
}

/**
 * The partner simulator's demo user logged in to a label's editor and one project of
 * `design` saved (retried while the catalogue import is still running): its id.
 */
export async function editorProject(base: string, labelId: string, design: unknown) {
  const session = await fetch(`${base}/editor/${labelId}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      userName: 'demo@example.com',
      password: 'demo-password',
      language: 'en',
    }),
  }).then((r) => r.json() as Promise<{ token: string }>);
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${base}/editor/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token}` },
      body: JSON.stringify({ name: 'Card', sku: 'A6-CARD', supplier: 'supplier-a', design }),
    });
    if (res.status === 201) return ((await res.json()) as { id: string }).id;
    await new Promise((r) => setTimeout(r, 200)); // the catalogue import is still running
  }
  throw new Error('the project could not be saved');
}
