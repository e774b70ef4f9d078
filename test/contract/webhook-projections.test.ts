import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { shopIntegrationsProjection } from '../../projections/shop-integrations.ts';
import { webhookQueueProjection } from '../../projections/webhook-queue.ts';
import { feedPage, webhooksProjection } from '../../projections/webhooks.ts';
import { connectPostgres, type Database } from '../../src/db/database.ts';
import { createDatabase } from '../helpers/postgres-cluster.ts';

/**
 * The webhook read models against the real PostgreSQL: the pull feed's order, where
 * positions are numbers; the queue's migration to the labels of integrations.
 */
describe('the webhook projections (PostgreSQL)', () => {
  let db: Database;
  beforeAll(async () => {
    db = await connectPostgres(await createDatabase(inject('postgresUrl')));
    await db.pool.query(webhooksProjection.schema);
  });
  afterAll(async () => db?.close());

  it('lists messages in log order across a change in the number of digits', async () => {
    const labelId = randomUUID();
    // 10 sorts before 9 as text, 100 before 99
    for (const commit of [99, 9, 100, 10]) {
      const message = { id: `msg_${commit}`, type: 'order.ready', data: {} };
      await db.pool.query(
        `INSERT INTO rm_webhook_feed (commit_pos, prepare_pos, label_id, message_id, message)
         VALUES ($1, 1, $2, $3, $4)`,
        [commit, labelId, message.id, JSON.stringify(message)],
      );
    }
    const ids = async (after?: { commit: bigint; prepare: bigint }) =>
      (await feedPage(db.pool, { labelId, limit: 10, ...(after ? { after } : {}) })).messages.map(
        (m) => m.id,
      );
    expect(await ids()).toEqual(['msg_9', 'msg_10', 'msg_99', 'msg_100']);
    expect(await ids({ commit: 10n, prepare: 1n })).toEqual(['msg_99', 'msg_100']);
  });

  it('gives the queue the label of each integration made before it followed them, once', async () => {
    const fresh = await connectPostgres(await createDatabase(inject('postgresUrl')));
    try {
      await fresh.pool.query(shopIntegrationsProjection.schema);
      const [labelId, integrationId] = [randomUUID(), randomUUID()];
      const insert = (id: string) =>
        fresh.pool.query(
          `INSERT INTO rm_shop_integrations (integration_id, label_id, name, shop_system, shop_url,
             api_key_prefix, created_at, updated_at)
           VALUES ($1, $2, 'Shop', 'test', 'https://shop.example', 'k', now(), now())`,
          [id, labelId],
        );
      await insert(integrationId);
      // a queue from before: its tables without the labels
      await fresh.pool.query(webhookQueueProjection.schema);
      const labels = () =>
        fresh.pool.query('SELECT integration_id, label_id FROM webhook_queue_integrations');
      expect((await labels()).rows).toEqual([{ integration_id: integrationId, label_id: labelId }]);
      // at every later start it is not filled again: the log tells it of new ones
      await insert(randomUUID());
      await fresh.pool.query(webhookQueueProjection.schema);
      expect((await labels()).rows).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });
});
