import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../src/temporal/contract.ts';
import { WorkflowStarts } from '../../src/temporal/workflow-starts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

describe('Temporal wiring against the real dev server', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.stop());

  it('runs a workflow on the app worker, whose activity reads the event store', async () => {
    const { client, target } = t.app.temporal!;
    const { position } = await t.app.store.append(
      `Ping-${randomUUID()}`,
      [{ id: randomUUID(), type: 'Pinged', schemaVersion: 1, data: {}, metadata: {} }],
      'no_stream',
    );
    const result = await client.workflow.execute('pingWorkflow', {
      taskQueue: target.taskQueue,
      workflowId: `ping-${randomUUID()}`,
      args: ['hello'],
    });
    expect(result.message).toBe('hello');
    // the activity read the event store: its head is at or past what was just appended
    // (past it when other tests appended meanwhile)
    const m = /^postgres at (\d+)\/(\d+)$/.exec(result.eventStore);
    expect(m).not.toBeNull();
    const [commit, prepare] = [BigInt(m![1]!), BigInt(m![2]!)];
    expect(
      commit > position.commit || (commit === position.commit && prepare >= position.prepare),
    ).toBe(true);
  });

  it('collapses a duplicate start onto one workflow id', async () => {
    const { client, target } = t.app.temporal!;
    const workflowId = `ping-${randomUUID()}`;
    const first = await client.workflow.start('pingWorkflow', {
      taskQueue: target.taskQueue,
      workflowId,
      args: ['a'],
    });
    await expect(
      client.workflow.start('pingWorkflow', {
        taskQueue: target.taskQueue,
        workflowId,
        args: ['b'],
      }),
    ).rejects.toThrow(/already started/i);
    expect((await first.result()).message).toBe('a');
  });

  it("starts an order's workflow through the app's client when the local worker's connection is gone", async () => {
    const { client, target } = t.app.temporal!;
    const gone = await NativeConnection.connect({ address: target.address });
    await gone.close();
    // a task queue nobody polls: the workflow only has to exist
    const starts = new WorkflowStarts(client, `nobody-${randomUUID()}`);
    const seen: string[] = [];
    starts.startOn(
      () => new Client({ connection: gone, namespace: target.namespace }),
      (firstTask) => seen.push(firstTask),
    );
    const orderId = `LOCAL-GONE-${randomUUID().slice(0, 8)}`;
    try {
      expect(
        await starts.order('label-x', orderId, `Order-label-x-${orderId}`, { items: ['i1'] }),
      ).toBe('started');
      expect(seen).toEqual(['queued']);
      expect(
        await starts.order('label-x', orderId, `Order-label-x-${orderId}`, { items: ['i1'] }),
      ).toBe('already');
      const d = await client.workflow.getHandle(workflowIds.order('label-x', orderId)).describe();
      expect(d.status.name).toBe('RUNNING');
    } finally {
      await client.workflow.getHandle(workflowIds.order('label-x', orderId)).terminate('test over');
    }
  });
});
