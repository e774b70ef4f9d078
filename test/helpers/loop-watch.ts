import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect } from 'vitest';
import type { client } from './app.ts';
import { orderDone, type Shop } from './orders.ts';

type Call = ReturnType<typeof client>;

export interface LoopWatch {
  /** stops watching; answers what it saw */
  stop(): Promise<{
    /** the event loop's delay, 99th percentile and worst, ms */
    p99: number;
    max: number;
    /** every /readyz answer meanwhile: status and how long it took, ms (and what failed) */
    readyz: { status: number; ms: number; body?: string }[];
  }>;
}

/**
 * Watches an in-process service while an attack runs: its event loop's delay (this
 * process is the service's, so its loop is the service's) and `/readyz`, asked every
 * 200 ms. A test then asserts the loop's p99 and that every /readyz answer was 200.
 */
export function watchLoop(baseUrl: string): LoopWatch {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const readyz: { status: number; ms: number; body?: string }[] = [];
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const began = performance.now();
      // a service that stopped answering is a status of 0, not an unhandled failure
      const answer = await fetch(`${baseUrl}/readyz`).then(
        async (r) => ({ status: r.status, body: await r.text() }),
        (err: unknown) => ({ status: 0, body: String(err) }),
      );
      readyz.push({
        status: answer.status,
        ms: performance.now() - began,
        // what was not ready, for the failure's message
        ...(answer.status === 200 ? {} : { body: answer.body.slice(0, 500) }),
      });
      await new Promise((res) => setTimeout(res, 200));
    }
  })();
  return {
    async stop() {
      polling = false;
      await poll;
      loop.disable();
      return { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6, readyz };
    },
  };
}

/**
 * The bounds an attack test holds the service to, far above anything a healthy run shows
 * on a loaded two-core machine, so that crossing one is a defect (a read held behind
 * another label's work, a loop blocked), never a slow moment. How fast the service is
 * meanwhile is a figure: each test prints it, the benches judge it.
 */
export const FAR = {
  /** another label's read of its order (tens of ms when healthy) */
  readMs: 2_000,
  /** the service's event-loop delay, 99th percentile (tens of ms when healthy) */
  loopP99Ms: 500,
  /** an answer given at once: a refusal, a cancel (tens to hundreds of ms when healthy) */
  answerMs: 10_000,
};

/**
 * Another label's sale, notified while an attack runs, rendered, then read: answers its
 * status and how long that read took.
 */
export async function anotherLabelServed(
  call: Call,
  shop: Shop,
): Promise<{ status: string; readMs: number }> {
  const orderId = `OTHER-${randomUUID().slice(0, 8)}`;
  const sale = await call('POST', '/webhook/notifyorder', {
    key: shop.shopKey,
    body: { orderId, items: [{ itemId: 'l1', projectId: shop.projects[0], quantity: 1 }] },
  });
  if (sale.status !== 200) throw new Error(`the other label's sale: ${sale.status}`);
  await orderDone(call, shop, orderId, 120_000);
  const began = performance.now();
  const read = await call('GET', `/api/orders/${orderId}`, { key: shop.adminKey });
  return { status: read.body?.status, readMs: performance.now() - began };
}

/**
 * What every attack test asserts of the service meanwhile: `/readyz` 200 on every ask,
 * another label's order rendered and read, the loop never blocked (FAR's bounds); it
 * prints the figures.
 */
export function expectOthersServed(
  seen: Awaited<ReturnType<LoopWatch['stop']>>,
  elsewhere: { status: string; readMs: number },
): void {
  console.log(
    `[served meanwhile] another label's read ${elsewhere.readMs.toFixed(0)} ms; loop p99 ${seen.p99.toFixed(1)} ms, max ${seen.max.toFixed(0)} ms; /readyz ${seen.readyz.length} asks, slowest ${Math.max(0, ...seen.readyz.map((r) => r.ms)).toFixed(0)} ms`,
  );
  expect(elsewhere.status).toBe('ready');
  expect(seen.readyz.filter((r) => r.status !== 200)).toEqual([]);
  expect(elsewhere.readMs, "another label's read").toBeLessThan(FAR.readMs);
  expect(seen.p99, "the service's event-loop delay, p99").toBeLessThan(FAR.loopP99Ms);
}
