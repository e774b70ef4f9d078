// npm run bench:webhooks
// Webhook delivery throughput: N one-item orders (a text-only A6 card) are notified over
// HTTP; the shop's webhook takes `order.received` and a local receiver answers 204. The
// figure is deliveries per second from the first notification to the Nth delivery,
// against a plain loop in this process that signs the same N messages (standardwebhooks)
// and POSTs them one after another to the same receiver, in the same run. The worker
// also renders every order meanwhile (two cores here), so a second figure isolates the
// delivery machinery: up to 500 of those deliveries resent through the API (reactor,
// workflow, activity, POST) with nothing else to do, against the same loop.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signedHeaders } from '../src/webhooks/signing.ts';
import { benchShop } from './lib/shop.ts';
import { type ServiceStack, startServiceStack } from './lib/stack.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 1000);
const NOTIFY_PARALLEL = 8;

async function main() {
  let stack: ServiceStack | undefined;
  const received = new Map<string, number>();
  let requests = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      requests++;
      if (!received.has(id)) received.set(id, performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  try {
    stack = await startServiceStack({
      PARTNER_SIMULATOR: 'on',
      WEBHOOK_ALLOW_HTTP: 'on',
      WEBHOOK_ALLOW_PRIVATE: 'on',
    });
    const area = { code: 'FRONT', name: 'Front', widthMm: 105, heightMm: 148 };
    const design = {
      areas: [
        {
          printArea: 'FRONT',
          layers: [
            { type: 'text', text: 'Thank you', x: 5, y: 20, fontSize: 18, color: '#000000' },
          ],
        },
      ],
    };
    const { call, label, shop, projectId } = await benchShop(stack, area, design);
    const hook = await call('PUT', `/api/shop-integration/${shop.id}/webhook`, label.adminApiKey, {
      url,
      events: ['order.received'],
    });

    // baseline: the same number of messages, signed and POSTed one after another
    const began0 = performance.now();
    for (let i = 0; i < ORDERS; i++) {
      const id = `msg_${randomUUID()}`;
      const body = JSON.stringify({
        type: 'order.received',
        timestamp: new Date().toISOString(),
        data: { orderId: `LOOP-${i}`, sequence: 1, orderItemIds: [randomUUID()] },
      });
      const r = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signedHeaders([hook.secret], id, new Date(), body),
        },
        body,
      });
      await r.arrayBuffer();
    }
    const loopRate = ORDERS / ((performance.now() - began0) / 1000);
    received.clear();
    requests = 0;

    const began = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: NOTIFY_PARALLEL }, async () => {
        while (next < ORDERS) {
          const i = next++;
          await call('POST', '/webhook/notifyorder', shop.apiKey, {
            orderId: `WH-${i}`,
            items: [{ itemId: 'l1', projectId, quantity: 1 }],
          });
        }
      }),
    );
    const notified = performance.now();
    while (received.size < ORDERS) {
      if (performance.now() - began > 30 * 60_000)
        throw new Error(`only ${received.size} delivered`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const last = Math.max(...received.values());
    const pipelineRate = ORDERS / ((last - began) / 1000);
    const notifyRate = ORDERS / ((notified - began) / 1000);

    // the delivery machinery alone: resends of delivered messages, nothing rendering
    await new Promise((r) => setTimeout(r, 2000)); // a late re-delivery would still count
    const duplicates = requests - received.size;
    const deliveries: { deliveryId: string }[] = [];
    for (;;) {
      const page = await call(
        'GET',
        `/api/shop-integration/${shop.id}/webhook/deliveries?status=delivered&limit=500`,
        label.adminApiKey,
      );
      if (page.length >= Math.min(500, ORDERS)) {
        deliveries.push(...page);
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const before = requests;
    const resentBegan = performance.now();
    let at = 0;
    await Promise.all(
      Array.from({ length: NOTIFY_PARALLEL }, async () => {
        while (at < deliveries.length) {
          const d = deliveries[at++]!;
          await call(
            'POST',
            `/api/shop-integration/${shop.id}/webhook/deliveries/${encodeURIComponent(d.deliveryId)}/resend`,
            label.adminApiKey,
          );
        }
      }),
    );
    while (requests - before < deliveries.length) {
      if (performance.now() - resentBegan > 10 * 60_000) throw new Error('resends did not arrive');
      await new Promise((r) => setTimeout(r, 20));
    }
    const resendRate = deliveries.length / ((performance.now() - resentBegan) / 1000);

    console.log(`\n${ORDERS} one-item orders, webhook for order.received, receiver answers 204\n`);
    console.log('| measure | value |');
    console.log('|---|---:|');
    console.log(`| plain loop of signed POSTs, per second | ${loopRate.toFixed(0)} |`);
    console.log(
      `| pipeline: notification to delivery, deliveries per second | ${pipelineRate.toFixed(1)} |`,
    );
    console.log(`| ratio pipeline / loop | ${(pipelineRate / loopRate).toFixed(3)} |`);
    console.log(
      `| notifications accepted per second (${NOTIFY_PARALLEL} at a time) | ${notifyRate.toFixed(1)} |`,
    );
    console.log(
      `| last delivery after the last notification, s | ${((last - notified) / 1000).toFixed(1)} |`,
    );
    console.log(`| requests beyond one per message before the resends | ${duplicates} |`);
    console.log(
      `| delivery machinery alone: ${deliveries.length} resends, deliveries per second | ${resendRate.toFixed(1)} |`,
    );
    console.log(`| ratio delivery machinery / loop | ${(resendRate / loopRate).toFixed(3)} |`);
  } finally {
    await stack?.stop();
    receiver.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
