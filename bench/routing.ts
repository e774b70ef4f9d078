// npm run bench:routing
// What routing adds to a sale notification: two labels on the same service, one without
// facilities (as every label was before: one implicit shop floor) and one with three
// (Berlin digital, Kraków digital and screen, Lisbon embroidery), whose notifications
// carry a recipient (checked per country, sealed with the order's key). ORDERS
// notifications of each, one order at a time (the next sent once this one's item is
// done), alternating A-B-B-A, in the same run:
//   - the notification's own answer (POST /webhook/notifyorder): p50 of each, and the
//     difference (the address check, the key, the sealing);
//   - receipt to done, as the event log timed them: to the item's print file without
//     facilities, to its ItemRouted with them (routing follows the print file, from the
//     log); the difference is what routing adds to the order's way to the press;
//   - the routing step alone (print file to ItemRouted).
import pg from 'pg';
import { benchShop } from './lib/shop.ts';
import { type ServiceStack, startServiceStack } from './lib/stack.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 200);
const WARM = 10;
const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(q * (s.length - 1))] ?? Number.NaN;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function main() {
  let stack: ServiceStack | undefined;
  try {
    stack = await startServiceStack({ PARTNER_SIMULATOR: 'on' });
    const area = { code: 'FRONT', name: 'Front', widthMm: 50, heightMm: 30 };
    const design = {
      areas: [
        {
          printArea: 'FRONT',
          layers: [{ type: 'text', text: 'Routed', x: 2, y: 10, fontSize: 12, color: '#000000' }],
        },
      ],
    };
    const plain = await benchShop(stack, area, design);
    const routed = await benchShop(stack, area, design);
    const facilities = [
      ['Berlin', 'DE', 'Europe/Berlin', ['digital']],
      ['Kraków', 'PL', 'Europe/Warsaw', ['digital', 'screen']],
      ['Lisbon', 'PT', 'Europe/Lisbon', ['embroidery']],
    ] as const;
    for (const [name, country, timezone, printMethods] of facilities) {
      const r = await routed.call('POST', '/api/facilities', routed.label.adminApiKey, {
        name,
        country,
        timezone,
        capabilities: { printMethods },
        capacity: { itemsPerDay: 100_000 },
        workingDays: EVERY_DAY,
      });
      if (!('facilityId' in (r as object))) throw new Error(`facility: ${JSON.stringify(r)}`);
    }
    const shipTos = [
      {
        name: 'Erika Mustermann',
        line1: 'Hauptstraße 5',
        city: 'Berlin',
        postalCode: '10115',
        country: 'DE',
      },
      {
        name: 'Jan Kowalski',
        line1: 'ul. Floriańska 1',
        city: 'Kraków',
        postalCode: '31-019',
        country: 'PL',
      },
    ];
    const db = new pg.Client({ connectionString: stack.databaseUrl });
    await db.connect();
    const latencies = { plain: [] as number[], routed: [] as number[] };
    // per order, from its receipt to where its item is done, as the log timed them: its
    // print file (without facilities), its routing (with them); and the routing step alone
    const done = { plain: [] as number[], routed: [] as number[] };
    const steps: number[] = [];
    const doneType = { plain: 'PrintFileGenerated', routed: 'ItemRouted' };
    const notify = async (which: 'plain' | 'routed', n: number, measured: boolean) => {
      const s = which === 'plain' ? plain : routed;
      const orderId = `R-${which}-${n}`;
      const body = JSON.stringify({
        orderId,
        items: [{ itemId: 'l1', projectId: s.projectId, quantity: 1 }],
        ...(which === 'routed' ? { shipTo: shipTos[Math.abs(n) % 2] } : {}),
      });
      const t0 = performance.now();
      const r = await fetch(`${stack!.base}/webhook/notifyorder`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': s.shop.apiKey },
        body,
      });
      const answer = (await r.json()) as { items?: { orderItemId: string }[] };
      if (r.status !== 200) throw new Error(`notification answered ${r.status}`);
      if (measured) latencies[which].push(performance.now() - t0);
      // one order at a time: the next is sent once this one's item is done
      const orderItemId = answer.items![0]!.orderItemId;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const q = await db.query<{ total: number; step: number | null }>(
          `SELECT extract(epoch FROM (d.recorded_at - o.recorded_at)) * 1000 AS total,
                  extract(epoch FROM (d.recorded_at - f.recorded_at)) * 1000 AS step
           FROM es_events d
           JOIN es_events o ON o.stream_id = d.stream_id AND o.type = 'OrderReceived'
           JOIN es_events f ON f.stream_id = d.stream_id AND f.type = 'PrintFileGenerated'
           WHERE d.type = $1 AND d.data->>'orderItemId' = $2 LIMIT 1`,
          [doneType[which], orderItemId],
        );
        const row = q.rows[0];
        if (row) {
          if (measured) {
            done[which].push(Number(row.total));
            if (which === 'routed') steps.push(Number(row.step));
          }
          break;
        }
        if (Date.now() > deadline) throw new Error(`${orderId} not done after a minute`);
        await new Promise((res) => setTimeout(res, 5));
      }
    };
    process.stderr.write(`warming up, then ${ORDERS} notifications of each label...\n`);
    try {
      for (let n = 0; n < WARM; n++) {
        await notify('plain', -1 - n, false);
        await notify('routed', -1 - n, false);
      }
      for (let n = 0; n < ORDERS; n += 2) {
        // A-B-B-A: neither label always goes first
        await notify('plain', n, true);
        await notify('routed', n, true);
        await notify('routed', n + 1, true);
        await notify('plain', n + 1, true);
      }
    } finally {
      await db.end();
    }
    const p50 = (xs: number[]) => quantile(xs, 0.5);
    const p99 = (xs: number[]) => quantile(xs, 0.99);
    console.log(
      `${ORDERS} notifications per label, one order at a time (each done before the next), A-B-B-A`,
    );
    console.log(
      `  the notification's answer: without facilities p50 ${ms(p50(latencies.plain))} (p99 ${ms(p99(latencies.plain))}); with three facilities and a recipient p50 ${ms(p50(latencies.routed))} (p99 ${ms(p99(latencies.routed))}); added p50 ${ms(p50(latencies.routed) - p50(latencies.plain))}`,
    );
    console.log(
      `  receipt to done (print file / routed): without p50 ${ms(p50(done.plain))} (p99 ${ms(p99(done.plain))}); with p50 ${ms(p50(done.routed))} (p99 ${ms(p99(done.routed))}); added p50 ${ms(p50(done.routed) - p50(done.plain))}`,
    );
    console.log(
      `  the routing step alone (print file -> ItemRouted): p50 ${ms(p50(steps))}, p99 ${ms(p99(steps))}`,
    );
    const added = Math.max(
      p50(latencies.routed) - p50(latencies.plain),
      p50(done.routed) - p50(done.plain),
    );
    console.log(
      `issue 45 bound (routing adds at most 10 ms p50): ${added <= 10 ? 'met' : 'NOT met'} (${ms(added)})`,
    );
  } finally {
    await stack?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
