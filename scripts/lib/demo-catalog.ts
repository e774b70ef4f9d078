// Plausible product configurations for demos and benchmarks.

const PRODUCTS = [
  { code: 'MUG', name: 'Ceramic mug 330 ml', areas: [['WRAP', 'Wrap-around', 200, 80]] },
  {
    code: 'TEE',
    name: 'Cotton T-shirt',
    areas: [
      ['FRONT', 'Front', 280, 350],
      ['BACK', 'Back', 280, 400],
    ],
  },
  { code: 'PEN', name: 'Ballpoint pen', areas: [['BARREL', 'Barrel', 45, 8]] },
  { code: 'BAG', name: 'Cotton tote bag', areas: [['FRONT', 'Front', 250, 300]] },
  { code: 'CAP', name: 'Baseball cap', areas: [['FRONT', 'Front panel', 100, 50]] },
] as const;
const COLOURS = ['white', 'black', 'navy', 'red', 'green', 'grey', 'yellow', 'royal'];
const METHODS = [
  ['screen', 'Screen print', 'SCR'],
  ['digital', 'Digital transfer', 'DTF'],
  ['pad', 'Pad print', 'PAD'],
  ['engraving', 'Laser engraving', 'LSR'],
] as const;

export function demoConfiguration(prefix: string, n: number) {
  const product = PRODUCTS[n % PRODUCTS.length]!;
  const colour = COLOURS[Math.floor(n / PRODUCTS.length) % COLOURS.length]!;
  const [method, methodName, methodCode] = METHODS[n % METHODS.length]!;
  const sku = `${prefix}-${product.code}-${String(n).padStart(6, '0')}-${colour.slice(0, 3).toUpperCase()}`;
  return {
    sku,
    baseSKU: `${prefix}-${product.code}`,
    skuGroup: `${product.code.toLowerCase()}-${colour}`,
    name: `${product.name}, ${colour}`,
    printMethod: method,
    printPosition: product.areas[0][0].toLowerCase(),
    printPositions: product.areas.map((a) => a[0].toLowerCase()),
    printColors: 1 + (n % 4),
    productColor: colour,
    supplierPrintMethodName: methodName,
    supplierPrintMethodCode: methodCode,
    supplierPrintAreaCodes: product.areas.map((a) => a[0]),
    supplierPrintAreaNames: product.areas.map((a) => a[1]),
    printAreas: product.areas.map(([code, name, widthMm, heightMm]) => ({
      code,
      name,
      widthMm,
      heightMm,
    })),
    published: true,
  };
}

/** A JSON client for a running service. */
export function http(baseUrl: string) {
  return async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': key,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json = text ? JSON.parse(text) : undefined;
    if (res.status >= 400)
      throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return json;
  };
}

/**
 * A label and one shop integration of it, through the operator and admin APIs; the
 * integration gets the offering permission when `offering` is set.
 */
export async function labelWithShop(
  call: ReturnType<typeof http>,
  operatorKey: string,
  names: { label: string; shop: string; shopSystem: string; shopUrl: string },
  offering: boolean,
) {
  const label = await call('POST', '/operator/labels', operatorKey, { name: names.label });
  const shop = await call('POST', '/api/shop-integration', label.adminApiKey, {
    name: names.shop,
    shopSystem: names.shopSystem,
    shopUrl: names.shopUrl,
  });
  if (offering)
    await call('PUT', `/operator/shop-integration/${shop.id}/permissions`, operatorKey, {
      permissions: ['offering'],
    });
  return { label, shop };
}

/** Imports `count` configurations for a supplier in calls of up to 10,000 and waits for each. */
export async function seedCatalog(
  call: ReturnType<typeof http>,
  operatorKey: string,
  supplier: string,
  prefix: string,
  count: number,
  log: (line: string) => void = () => {},
) {
  for (let start = 0; start < count; start += 10_000) {
    const body = Array.from({ length: Math.min(10_000, count - start) }, (_, i) =>
      demoConfiguration(prefix, start + i),
    );
    const { importId } = await call('POST', `/operator/catalog/${supplier}`, operatorKey, body);
    for (;;) {
      const status = await call('GET', `/operator/catalog/imports/${importId}`, operatorKey).catch(
        () => undefined,
      );
      if (status?.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    log(`${supplier}: ${Math.min(start + 10_000, count)} of ${count} configurations`);
  }
}
