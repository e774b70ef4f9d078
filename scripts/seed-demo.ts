// npm run seed:demo   (the service must be running: npm start)
// Creates a demo label with its keys, a shop integration with the offering permission,
// a printshop key, a catalogue across the four default suppliers, printshop SKU groups
// and some prices; then one real order: the simulator's demo user saves a project, the
// shop reports its sale, and the script waits for the print file and prints where it
// is, the order's ops page and its workflow in Temporal's UI.
// Settings, read as the service reads them: DATA_DIR (./data), OPERATOR_API_KEY (else
// the one the service keeps in DATA_DIR/operator-api-key), HOST and PORT (127.0.0.1:3000)
// or BASE_URL, TEMPORAL_UI_URL (else the embedded dev server's, TEMPORAL_UI_PORT 8233);
// SEED_PER_SUPPLIER (1500).
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { demoConfiguration, http, labelWithShop, seedCatalog } from './lib/demo-catalog.ts';

const env = process.env;
const baseUrl = env.BASE_URL || `http://${env.HOST || '127.0.0.1'}:${env.PORT || '3000'}`;
const perSupplier = Number(env.SEED_PER_SUPPLIER ?? 1500);
const dataDir = path.resolve(env.DATA_DIR || './data');
const call = http(baseUrl);
const simKeyFile = path.join(dataDir, 'partner-sim-api-key');
// the embedded default starts the partner simulator on the port after the service's
const simUrl = env.PARTNER_SIM_URL ?? `http://127.0.0.1:${Number(new URL(baseUrl).port || 80) + 1}`;
const temporalUi =
  env.TEMPORAL_UI_URL ??
  (env.TEMPORAL_ADDRESS || env.TEMPORAL_UI_PORT === '0'
    ? undefined
    : `http://127.0.0.1:${env.TEMPORAL_UI_PORT || '8233'}`);

class Refused extends Error {}

/**
 * The operator key as the service finds it: OPERATOR_API_KEY, else the one it keeps in DATA_DIR.
 */
function operatorKey(): string {
  if (env.OPERATOR_API_KEY) return env.OPERATOR_API_KEY;
  const file = path.join(dataDir, 'operator-api-key');
  if (!existsSync(file))
    throw new Refused(
      `no operator key at ${file}: run this with the DATA_DIR the service runs with, or set OPERATOR_API_KEY`,
    );
  return readFileSync(file, 'utf8').trim();
}

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline)
      throw new Refused(`gave up waiting for ${what} after ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** One order end to end: a project of the simulator's demo user, its sale, its print file. */
async function demoOrder(
  label: { labelId: string; adminApiKey: string },
  shopKey: string,
  supplier: string,
) {
  const login = await fetch(`${baseUrl}/editor/${label.labelId}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      userName: 'demo@example.com',
      password: 'demo-password',
      language: 'en',
    }),
  });
  if (login.status !== 200)
    throw new Refused(
      `the demo user cannot log in (${login.status} ${(await login.text()).slice(0, 200)})`,
    );
  const { token } = (await login.json()) as { token: string };
  // a digital T-shirt of the catalogue: a picture and a line of text on its front
  const config = demoConfiguration('S1', 1);
  const picture = await sharp({
    create: { width: 1200, height: 900, channels: 3, background: '#1f5fbf' },
  })
    .composite([
      {
        input: Buffer.from(
          '<svg width="1200" height="900"><circle cx="600" cy="450" r="330" fill="#f2c14e"/></svg>',
        ),
      },
    ])
    .png()
    .toBuffer();
  const project = await fetch(`${baseUrl}/editor/projects`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      name: 'Demo shirt',
      sku: config.sku,
      supplier,
      design: {
        areas: [
          {
            printArea: 'FRONT',
            layers: [
              {
                type: 'image',
                src: `data:image/png;base64,${picture.toString('base64')}`,
                x: 40,
                y: 30,
                width: 200,
                height: 150,
                rotation: 0,
              },
              {
                type: 'text',
                text: 'Summer Fair 2026',
                x: 40,
                y: 200,
                fontSize: 36,
                color: '#1a2b3c',
              },
            ],
          },
        ],
      },
    }),
  });
  if (project.status !== 201)
    throw new Refused(
      `the demo project was refused (${project.status} ${(await project.text()).slice(0, 300)})`,
    );
  const { id: projectId } = (await project.json()) as { id: string };
  const orderId = `DEMO-${randomUUID().slice(0, 8)}`;
  await call('POST', '/webhook/notifyorder', shopKey, {
    orderId,
    customer: { name: 'Erika Mustermann' },
    items: [{ itemId: 'line-1', projectId, quantity: 25 }],
  });
  const order = await until(`order ${orderId} to be printed`, 180_000, async () => {
    const o = await call('GET', `/api/orders/${orderId}`, label.adminApiKey);
    return ['ready', 'failed'].includes(o.status) ? o : undefined;
  });
  if (order.status !== 'ready')
    throw new Refused(
      `the demo order failed: ${order.lastError ?? order.reason ?? 'see the ops page'}`,
    );
  return { orderId, order };
}

async function main() {
  const key = operatorKey();
  const suppliers: string[] = await call('GET', '/operator/suppliers', key).catch((err: Error) => {
    throw new Refused(
      `cannot reach the service at ${baseUrl} (${(err.cause as Error | undefined)?.message ?? err.message}); start it with npm start, or set BASE_URL (or HOST and PORT as the service has them)`,
    );
  });
  const { label, shop } = await labelWithShop(
    call,
    key,
    {
      label: 'Demo Print Shop',
      shop: 'Demo web shop',
      shopSystem: 'shopware',
      shopUrl: 'https://shop.demo.example',
    },
    true,
  );
  const printshop = await call('POST', '/operator/printshop-keys', key, {
    name: 'Demo print partner',
  });
  const simulator = existsSync(simKeyFile);
  if (simulator) {
    const apiKey = readFileSync(simKeyFile, 'utf8').trim();
    await call('POST', `/operator/labels/${label.labelId}/callbacks`, key, {
      staging: { url: simUrl, apiKey },
      production: { url: simUrl, apiKey },
      environment: 'production',
    });
    console.log(`login callbacks: the partner simulator at ${simUrl}`);
  }

  const catalogSuppliers = suppliers.slice(0, 4);
  for (const [i, supplier] of catalogSuppliers.entries()) {
    await seedCatalog(call, key, supplier, `S${i + 1}`, perSupplier, console.log);
  }
  const groups = ['Mug classic', 'Tote bag organic', 'Cap snapback'].map((groupName, g) => ({
    groupName,
    skus: ['WHT', 'BLK', 'NVY'].map((c) => `PS-${g + 1}-${c}`),
  }));
  const imp = await call('POST', '/v1/api/printshop/sku', printshop.apiKey, groups);
  console.log(`printshop SKU groups: import ${imp.importId}`);
  const priced = Array.from({ length: 20 }, (_, n) => demoConfiguration('S1', n).sku);
  await call('POST', '/api/price/import', label.adminApiKey, {
    currency: 'EUR',
    prices: priced.flatMap((sku) => [
      {
        sku,
        supplier: catalogSuppliers[0],
        minQuantity: 1,
        unitPrice: '4.90',
        setupPrice: '29.00',
      },
      { sku, supplier: catalogSuppliers[0], minQuantity: 100, unitPrice: '2.45' },
    ]),
  });

  const sample = priced[0];
  console.log(`
Demo label "Demo Print Shop" (partner id ${label.partnerId})
  label id           ${label.labelId}
  admin key          ${label.adminApiKey}
  fulfillment key    ${label.fulfillmentApiKey}
  integration key    ${shop.apiKey}   (offering permission granted)
  printshop key      ${printshop.apiKey}

Log in as the simulator's demo user (when the partner simulator runs):
  curl -s -XPOST '${baseUrl}/editor/${label.labelId}/login' -H 'content-type: application/json' \\
    -d '{"userName":"demo@example.com","password":"demo-password","language":"en"}'

Try:
  curl -s '${baseUrl}/api/offering/sku/data?supplier=${catalogSuppliers[0]}&sku=${sample}' -H 'x-api-key: ${shop.apiKey}'
  curl -si '${baseUrl}/api/offering/smartlink?supplier=${catalogSuppliers[1]}&limit=5' -H 'x-api-key: ${shop.apiKey}'
`);

  if (!simulator) {
    console.log(
      `No demo order: the partner simulator is off (no ${simKeyFile}), so nobody can log in to save a project.`,
    );
    return;
  }
  console.log('A demo order: a project saved, its sale reported, its print file rendered...');
  const { orderId, order } = await demoOrder(label, shop.apiKey, catalogSuppliers[0]!);
  const item = order.items[0];
  const file = item.printFiles[0];
  const local = path.join(
    dataDir,
    'print-files',
    label.labelId,
    item.orderItemId,
    `${file.sha256}.pdf`,
  );
  const workflowId = order.workflowId as string;
  console.log(`
Order ${orderId} is ${order.status}: ${file.pages} page(s), ${file.bytes} bytes, sha256 ${file.sha256}
  print file         ${existsSync(local) ? local : '(in the object storage)'}
  download           curl -o print.pdf '${file.url}' -H 'x-api-key: ${label.adminApiKey}'
  ops page           ${baseUrl}/ops/labels/${label.labelId}/orders/${orderId}   (log in with the admin key above)
  workflow           ${temporalUi ? `${temporalUi}/namespaces/${encodeURIComponent(env.TEMPORAL_NAMESPACE || 'default')}/workflows/${encodeURIComponent(workflowId)}` : workflowId}
`);
}

main().catch((err) => {
  // what a user can act on, in a line; anything else with its stack
  console.error(err instanceof Refused ? err.message : err);
  process.exit(1);
});
