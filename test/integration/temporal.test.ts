import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

describe('Temporal wiring against the real dev server', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.stop());

  it('runs a workflow on the app worker, whose activity reads the event store', async () => {
    const { client, target } = t.app.temporal!;
    await t.app.store.append(
      `Ping-${randomUUID()}`,
      [{ id: randomUUID(), type: 'Pinged', schemaVersion: 1, data: {}, metadata: {} }],
      'no_stream',
    );
    const head = await t.app.store.headPosition();
    const result = await client.workflow.execute('pingWorkflow', {
      taskQueue: target.taskQueue,
      workflowId: `ping-${randomUUID()}`,
      args: ['hello'],
    });
    expect(result).toEqual({
      message: 'hello',
      eventStore: `postgres at ${head.commit}/${head.prepare}`,
    });
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
});
