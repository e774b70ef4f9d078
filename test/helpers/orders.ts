import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { expect } from 'vitest';
import { noReadModels } from '../../src/app/context.ts';
import { issueEditorToken } from '../../src/app/editor-token.ts';
import { registerPartnerUser } from '../../src/app/partner-users.ts';
import { previewKey } from '../../src/app/previews.ts';
import { LABEL_MAXIMUMS } from '../../src/domain/shared/maximums.ts';
import type { EventStore } from '../../src/eventstore/port.ts';
import type { client } from './app.ts';
import { config, importDone } from './fixtures.ts';

type Call = ReturnType<typeof client>;

/** Polls until `probe` gives a value; throws naming `what` after the time limit. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  everyMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const textDesign = (text: string) => ({
  areas: [
    {
      printArea: 'FRONT',
      layers: [{ type: 'text', text, x: 1, y: 1, fontSize: 12, color: '#000000' }],
    },
  ],
});

export interface Shop {
  labelId: string;
  /** the product the projects are of (supplier-a) */
  sku: string;
  adminKey: string;
  fulfillmentKey: string;
  shopKey: string;
  projects: string[];
  /** an editor token of the shop's user, for more projects */
  token: string;
}

/** What setUpShop needs of a service started in this process. */
export const accessOf = (t: {
  operatorKey: string;
  editorTokenSecret: string;
  app: { store: EventStore; db: { pool: pg.Pool } };
}) => ({
  operatorKey: t.operatorKey,
  editorTokenSecret: t.editorTokenSecret,
  store: t.app.store,
  pool: t.app.db.pool,
});

/**
 * Over HTTP only (the service may be another process): a label, a catalogue with one
 * product, a shop integration, an editor user (registered in the event store the
 * service reads) and `projects` saved designs.
 */
export async function setUpShop(
  call: Call,
  access: { operatorKey: string; editorTokenSecret: string; store: EventStore; pool: pg.Pool },
  projects = 2,
): Promise<Shop> {
  const label = await call('POST', '/operator/labels', {
    key: access.operatorKey,
    body: { name: `Shop ${randomUUID().slice(0, 6)}` },
  });
  expect(label.status, JSON.stringify(label.body)).toBe(201);
  const sku = `TEE-${randomUUID().slice(0, 6)}`;
  const imp = await call('POST', '/operator/catalog/supplier-a', {
    key: access.operatorKey,
    body: [config(sku)],
  });
  expect(imp.status, JSON.stringify(imp.body)).toBe(202);
  await importDone(
    call,
    `/operator/catalog/imports/${imp.body.importId}`,
    access.operatorKey,
    90_000,
  );
  const shop = await call('POST', '/api/shop-integration', {
    key: label.body.adminApiKey,
    body: { name: 'Shop', shopSystem: 'test', shopUrl: 'https://shop.example' },
  });
  expect(shop.status).toBe(201);
  const { userRef } = await registerPartnerUser(
    // the service (maybe another process) waits for its own read models
    { store: access.store, pool: access.pool, readModels: noReadModels, maximums: LABEL_MAXIMUMS },
    label.body.labelId,
    `u-${randomUUID()}`,
    undefined,
    { actor: 'test' },
  );
  const token = issueEditorToken(access.editorTokenSecret, label.body.labelId, userRef);
  const ids: string[] = [];
  for (let i = 0; i < projects; i++) {
    const p = await until('the user and the product to be readable', async () => {
      const r = await call('POST', '/editor/projects', {
        headers: { authorization: `Bearer ${token}` },
        body: { name: `P${i}`, sku, supplier: 'supplier-a', design: textDesign(`item ${i}`) },
      });
      return r.status === 201 ? r : undefined;
    });
    ids.push(p.body.id);
  }
  return {
    labelId: label.body.labelId,
    sku,
    adminKey: label.body.adminApiKey,
    fulfillmentKey: label.body.fulfillmentApiKey,
    shopKey: shop.body.apiKey,
    projects: ids,
    token,
  };
}

/** A sale notification with one item per project; answers the HTTP status. */
export async function notify(call: Call, shop: Shop, orderId: string): Promise<number> {
  const r = await call('POST', '/webhook/notifyorder', {
    key: shop.shopKey,
    body: {
      orderId,
      items: shop.projects.map((projectId, n) => ({ itemId: `l${n}`, projectId, quantity: 1 })),
    },
  });
  return r.status;
}

/** The order once it is ready or failed. */
export async function orderDone(call: Call, shop: Shop, orderId: string, timeoutMs = 120_000) {
  return until(
    `order ${orderId} to be done`,
    async () => {
      const r = await call('GET', `/api/orders/${encodeURIComponent(orderId)}`, {
        key: shop.adminKey,
      });
      return r.body?.status === 'ready' || r.body?.status === 'failed' ? r.body : undefined;
    },
    timeoutMs,
  );
}

/** PrintFileGenerated events per order item of a label's orders, from the log itself. */
export async function printFilesPerItem(pool: pg.Pool, labelId: string): Promise<number[]> {
  const r = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM es_events WHERE type = 'PrintFileGenerated' AND stream_id LIKE $1
     GROUP BY data->>'orderItemId' ORDER BY 1`,
    [`Order-${labelId}-%`],
  );
  return r.rows.map((x) => x.n);
}

/**
 * Checks what a label's print-file storage holds against its order: each print file's
 * PDF, and nothing else but previews of their pages (drawn after the order is ready,
 * by the worker role's previews reactor, so some may still be missing).
 */
export function expectOnlyPrintFiles(
  files: string[],
  labelId: string,
  order: {
    items: { orderItemId: string; printFiles: { sha256: string; pages: number }[] }[];
  },
): void {
  const pdfs = order.items.flatMap((item) =>
    item.printFiles.map((f) => ({
      key: `${labelId}/${item.orderItemId}/${f.sha256}.pdf`,
      pages: f.pages,
    })),
  );
  const previews = new Set(
    pdfs.flatMap((p) => Array.from({ length: p.pages }, (_, i) => previewKey(p.key, i + 1))),
  );
  expect(files.filter((f) => f.endsWith('.pdf')).sort()).toEqual(pdfs.map((p) => p.key).sort());
  expect(files.filter((f) => !f.endsWith('.pdf') && !previews.has(f))).toEqual([]);
}
