// npx tsx scripts/record-workflow-histories.ts
// Records the sale notification workflow's histories, as the workflow code checked out
// now runs it with stand-in activities, into test/fixtures/workflow-histories/. Run it
// on the code before a change to the workflow's commands: the replay tests then prove
// that the changed code carries on from histories the old one left behind (workflows
// under way while the workers are upgraded). Needs the Temporal CLI (TEMPORAL_CLI_PATH,
// else the project's, npm run temporal:install).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Activities } from '../src/temporal/contract.ts';
import { startLocalTemporal } from '../src/temporal/dev-server.ts';
import { saleNotificationWorkflow } from '../workflows/sale-notification.ts';

const out = new URL('../test/fixtures/workflow-histories/', import.meta.url).pathname;
const items = ['i1', 'i2', 'i3'];
const activities: Partial<Activities> = {
  startRendering: async () => items,
  renderOrderItem: async (_stream, id) => ({ outcome: 'ready', sha256: `sha-${id}` }),
  printOrderItem: async (_stream, id) => ({
    outcome: 'ready',
    sha256: `sha-${id}`,
    ...(id === items.at(-1) ? { order: { status: 'ready' } } : {}),
  }),
  completeOrder: async () => ({ status: 'ready' }),
};
const runs: [string, Parameters<typeof saleNotificationWorkflow>][] = [
  ['started-with-items', ['Order-label-1', items]],
  ['started-without-items', ['Order-label-2']],
];

const server = await startLocalTemporal({ cliPath: process.env.TEMPORAL_CLI_PATH });
const connection = await Connection.connect({ address: server.address });
const native = await NativeConnection.connect({ address: server.address });
try {
  const client = new Client({ connection });
  mkdirSync(out, { recursive: true });
  for (const [name, args] of runs) {
    const taskQueue = `recorded-${name}`;
    const workflowId = `sale-notification-${name}`;
    const worker = await Worker.create({
      connection: native,
      taskQueue,
      identity: 'recorder',
      workflowsPath: new URL('../workflows/index.ts', import.meta.url).pathname,
      activities,
    });
    await worker.runUntil(
      client.workflow.execute(saleNotificationWorkflow, { taskQueue, workflowId, args }),
    );
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const file = `${out}sale-notification-${name}.binpb`;
    writeFileSync(file, proto.temporal.api.history.v1.History.encode(history).finish());
    console.log(`${file}: ${history.events?.length} events`);
  }
} finally {
  await connection.close();
  await native.close();
  await server.stop();
}
