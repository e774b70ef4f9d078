import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Activities } from '../../src/temporal/contract.ts';
import { saleNotificationWorkflow } from '../../workflows/sale-notification.ts';

/**
 * The sale notification workflow alone, its activities mocked (as Temporal's samples test
 * workflows), on the run's real Temporal dev server.
 */
describe('sale notification workflow (mocked activities)', () => {
  let connection: Connection;
  let client: Client;
  let native: NativeConnection;

  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection });
    native = await NativeConnection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    await connection?.close();
    await native?.close();
  });

  const workflowsPath = new URL('../../workflows/index.ts', import.meta.url).pathname;
  /** the workflow id of the last run */
  let lastRun = '';
  /** the kinds of event in the last run's history */
  const lastHistory = async () =>
    ((await client.workflow.getHandle(lastRun).fetchHistory()).events ?? []).map((e) => ({
      type: e.eventType,
      activity: e.activityTaskScheduledEventAttributes?.activityType?.name,
      marker: e.markerRecordedEventAttributes?.markerName,
    }));

  async function run(mocks: Partial<Activities>, items: string[], startedWithItems = false) {
    const taskQueue = `wf-${randomUUID()}`;
    const worker = await Worker.create({
      connection: native,
      taskQueue,
      workflowsPath,
      activities: mocks,
    });
    lastRun = `test-${randomUUID()}`;
    return worker.runUntil(
      client.workflow.execute(saleNotificationWorkflow, {
        taskQueue,
        workflowId: lastRun,
        args: startedWithItems
          ? [`Order-test-${items.length}`, items]
          : [`Order-test-${items.length}`],
      }),
    );
  }

  it('renders every pending item, two at a time, then completes the order', async () => {
    const items = ['i1', 'i2', 'i3', 'i4', 'i5'];
    const calls: string[] = [];
    let inFlight = 0;
    let most = 0;
    const result = await run(
      {
        startRendering: async () => items,
        renderOrderItem: async (_stream: string, id: string) => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((r) => setTimeout(r, 20));
          inFlight--;
          calls.push(id);
          return { outcome: 'ready' as const, sha256: `sha-${id}` };
        },
        completeOrder: async () => {
          calls.push('complete');
          return { status: 'ready' as const };
        },
      } as Partial<Activities>,
      items,
    );
    expect(result).toEqual({ status: 'ready' });
    expect([...calls].slice(0, -1).sort()).toEqual(items);
    expect(calls.at(-1)).toBe('complete');
    expect(most).toBe(2);
  });

  it('completes at once when nothing is pending (a restarted workflow of a rendered order)', async () => {
    const rendered: string[] = [];
    const result = await run(
      {
        startRendering: async () => [],
        renderOrderItem: async (_s: string, id: string) => {
          rendered.push(id);
          return { outcome: 'ready' as const, sha256: undefined };
        },
        completeOrder: async () => ({ status: 'failed' as const, reason: 'l1: broken image' }),
      } as Partial<Activities>,
      [],
    );
    expect(rendered).toEqual([]);
    expect(result).toEqual({ status: 'failed', reason: 'l1: broken image' });
  });

  it('started with the order items, renders them in the run and takes the outcome of the render that completed the order', async () => {
    const items = ['i1', 'i2', 'i3'];
    const calls: string[] = [];
    let inFlight = 0;
    let most = 0;
    const result = await run(
      {
        startRendering: async () => {
          calls.push('start');
          return items;
        },
        printOrderItem: async (_stream: string, id: string) => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((r) => setTimeout(r, 20));
          inFlight--;
          calls.push(id);
          // the render whose append settled the last item completed the order
          return calls.filter((c) => c.startsWith('i')).length === items.length
            ? {
                outcome: 'ready' as const,
                sha256: `sha-${id}`,
                order: { status: 'ready' as const },
              }
            : { outcome: 'ready' as const, sha256: `sha-${id}` };
        },
        completeOrder: async () => {
          calls.push('complete');
          return { status: 'ready' as const };
        },
      } as Partial<Activities>,
      items,
      true,
    );
    expect(result).toEqual({ status: 'ready' });
    expect([...calls].sort()).toEqual(items);
    expect(most).toBe(2);
    // rendered as local activities: a marker each in the history, no activity scheduled
    const history = await lastHistory();
    expect(history.filter((e) => e.activity !== undefined)).toEqual([]);
    expect(history.filter((e) => e.marker === 'core_local_activity')).toHaveLength(items.length);
  });

  it('started with the order items, completes the order itself when no render did', async () => {
    const calls: string[] = [];
    const result = await run(
      {
        printOrderItem: async (_stream: string, id: string) => {
          calls.push(id);
          // settled before this run: nothing rendered, nothing completed
          return { outcome: 'failed' as const, sha256: undefined };
        },
        completeOrder: async () => {
          calls.push('complete');
          return { status: 'failed' as const, reason: 'i1: broken image' };
        },
      } as Partial<Activities>,
      ['i1'],
      true,
    );
    expect(calls).toEqual(['i1', 'complete']);
    expect(result).toEqual({ status: 'failed', reason: 'i1: broken image' });
  });

  // histories recorded by the workflow's code before its renders became local activities
  // (one scheduled activity per item): a workflow under way while the worker is upgraded
  // carries on from them
  it.each(['started-with-items', 'started-without-items'])(
    'replays a history recorded before renders became local activities (%s)',
    async (name) => {
      // recorded by scripts/record-workflow-histories.ts
      const history = proto.temporal.api.history.v1.History.decode(
        readFileSync(
          new URL(
            `../fixtures/workflow-histories/sale-notification-${name}.binpb`,
            import.meta.url,
          ),
        ),
      );
      expect(
        history.events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name),
      ).toContain(name === 'started-with-items' ? 'printOrderItem' : 'renderOrderItem');
      await expect(
        Worker.runReplayHistory({ workflowsPath }, history, `replay-${name}`),
      ).resolves.toBeUndefined();
    },
  );
});
