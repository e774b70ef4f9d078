// npm run seed:demo   (the service must be running: npm start)
// Creates a demo label with its keys, a shop integration with the offering permission,
// a printshop key, a catalogue across the four default suppliers, printshop SKU groups
// and some prices, then prints the keys.
// Settings: BASE_URL (else http://HOST:PORT, as the service reads them: 127.0.0.1:3000),
// OPERATOR_API_KEY (else DATA_DIR/operator-api-key), SEED_PER_SUPPLIER (1500).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { demoConfiguration, http, labelWithShop, seedCatalog } from './lib/demo-catalog.ts';

const baseUrl =
  process.env.BASE_URL ?? `http://${process.env.HOST || '127.0.0.1'}:${process.env.PORT || '3000'}`;
const perSupplier = Number(process.env.SEED_PER_SUPPLIER ?? 1500);
const dataDir = process.env.DATA_DIR ?? './data';
const operatorKey =
  process.env.OPERATOR_API_KEY ??
  readFileSync(path.join(dataDir, 'operator-api-key'), 'utf8').trim();
const call = http(baseUrl);
const simKeyFile = path.join(dataDir, 'partner-sim-api-key');
// the embedded default starts the partner simulator on the port after the service's
const simUrl =
  process.env.PARTNER_SIM_URL ?? `http://127.0.0.1:${Number(new URL(baseUrl).port || 80) + 1}`;

async function main() {
  const suppliers: string[] = await call('GET', '/operator/suppliers', operatorKey).catch(
    (err: Error) => {
      throw new Error(
        `cannot reach the service at ${baseUrl} (${(err.cause as Error | undefined)?.message ?? err.message}); start it with npm start, or set BASE_URL (or HOST and PORT)`,
      );
    },
  );
  const { label, shop } = await labelWithShop(
    call,
    operatorKey,
    {
      label: 'Demo Print Shop',
      shop: 'Demo web shop',
      shopSystem: 'shopware',
      shopUrl: 'https://shop.demo.example',
    },
    true,
  );
  const printshop = await call('POST', '/operator/printshop-keys', operatorKey, {
    name: 'Demo print partner',
  });
  if (existsSync(simKeyFile)) {
    const apiKey = readFileSync(simKeyFile, 'utf8').trim();
    await call('POST', `/operator/labels/${label.labelId}/callbacks`, operatorKey, {
      staging: { url: simUrl, apiKey },
      production: { url: simUrl, apiKey },
      environment: 'production',
    });
    console.log(`login callbacks: the partner simulator at ${simUrl}`);
  }

  const catalogSuppliers = suppliers.slice(0, 4);
  for (const [i, supplier] of catalogSuppliers.entries()) {
    await seedCatalog(call, operatorKey, supplier, `S${i + 1}`, perSupplier, console.log);
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
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
