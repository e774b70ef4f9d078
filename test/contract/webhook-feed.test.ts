import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { feedPage, webhooksProjection } from '../../projections/webhooks.ts';
import { connectPostgres, type Database } from '../../src/db/database.ts';
import { createDatabase } from '../helpers/postgres-cluster.ts';

/** The pull feed's order against the real PostgreSQL, where positions are numbers. */
describe('the webhook feed (PostgreSQL)', () => {
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
});
