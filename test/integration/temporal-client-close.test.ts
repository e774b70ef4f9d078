import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/db/database.ts';
import { connectClient } from '../../src/temporal/worker.ts';

describe('closing the Temporal client while a call is being retried', () => {
  it('ends the call with an error instead of throwing from a retry timer', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      // nothing listens there: every attempt fails UNAVAILABLE and is retried on a timer
      const { client, close } = connectClient({
        address: `127.0.0.1:${await freePort()}`,
        namespace: 'default',
        taskQueue: 'unused',
      });
      const call = client.workflowService.getSystemInfo({}).then(
        () => 'answered',
        (err: Error) => err.message,
      );
      await new Promise((r) => setTimeout(r, 300));
      await close();
      const outcome = await call;
      expect(outcome).toMatch(/UNAVAILABLE|closed|connect/i);
      // the retry timers the SDK left behind have all fired by now
      await new Promise((r) => setTimeout(r, 2_000));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  }, 60_000);
});
