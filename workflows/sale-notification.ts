import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../src/activities/index.ts';
import { RENDERING } from './policies.ts';

const { startRendering, renderOrderItem, completeOrder } = proxyActivities<Activities>(RENDERING);

const PARALLEL_ITEMS = 2;

/**
 * A sale notification becomes print files: every pending item is rendered (two at a
 * time), then the order is marked ready, or failed with the reasons of the items that
 * could not be rendered once all the others are done.
 */
export async function saleNotificationWorkflow(
  orderStream: string,
): Promise<{ status: string; reason?: string }> {
  const pending = await startRendering(orderStream);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL_ITEMS, pending.length) }, async () => {
      while (next < pending.length) await renderOrderItem(orderStream, pending[next++]!);
    }),
  );
  return completeOrder(orderStream);
}
