import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CommandBatches } from '../../src/app/command-batches.ts';
import { handleCommand, type StreamState } from '../../src/app/command-handler.ts';
import { FoldedStates } from '../../src/app/folded-states.ts';
import { connectPostgres, type Database } from '../../src/db/database.ts';
import { type LabelState, labelAggregate } from '../../src/domain/label/decider.ts';
import { labelStream } from '../../src/domain/label/events.ts';
import { PostgresEventStore } from '../../src/eventstore/postgres.ts';
import { createDatabase } from '../helpers/postgres-cluster.ts';

const key = (c: string) => ({ prefix: 'ep_adm_00000000', sha256: c.repeat(64) });
const at = new Date('2026-11-24T10:00:00.000Z');
const meta = { actor: 'test' };

/**
 * Commands decided together per stream, on states kept between them, against the real
 * PostgreSQL event store: each command's outcome is what deciding it alone would give,
 * and another writer's append in between is noticed, never overwritten.
 */
describe('command batches and folded states', () => {
  let db: Database;
  let store: PostgresEventStore;
  beforeAll(async () => {
    db = await connectPostgres(await createDatabase(inject('postgresUrl')), 8);
    await PostgresEventStore.migrate(db.pool);
    store = new PostgresEventStore(db.pool);
  });
  afterAll(async () => db?.close());

  const created = async () => {
    const labelId = randomUUID();
    await handleCommand(
      store,
      labelAggregate,
      labelStream(labelId),
      {
        type: 'CreateLabel',
        labelId,
        name: 'L',
        partnerId: 1,
        adminKey: key('a'),
        fulfillmentKey: key('b'),
        at,
      },
      meta,
    );
    return labelId;
  };

  it('decides 30 concurrent commands on one stream in few appends, each as it would alone', async () => {
    const labelId = await created();
    const batches = new CommandBatches(store, labelAggregate, new FoldedStates<LabelState>());
    const hours = Array.from({ length: 30 }, (_, i) => i % 10);
    const answers = await Promise.allSettled(
      hours.map((shipWithinHours) =>
        batches.run(labelStream(labelId), { type: 'SetShipDeadline', shipWithinHours, at }, meta),
      ),
    );
    expect(answers.every((a) => a.status === 'fulfilled')).toBe(true);
    const stored = await store.readStream(labelStream(labelId));
    // in order, each a change from the one before: 0 is the first change from 72
    expect(
      stored.filter((e) => e.type === 'LabelShipDeadlineSet').map((e) => e.data.shipWithinHours),
    ).toEqual(hours);
    const appends = new Set(stored.slice(1).map((e) => e.position.commit));
    expect(appends.size).toBeLessThan(hours.length);
    // a command refused alone is refused in a batch, and the others still land
    const missing = randomUUID();
    const mixed = await Promise.allSettled([
      batches.run(labelStream(missing), { type: 'SetShipDeadline', shipWithinHours: 1, at }, meta),
      batches.run(labelStream(labelId), { type: 'SetShipDeadline', shipWithinHours: 48, at }, meta),
    ]);
    expect(mixed[0]).toMatchObject({ status: 'rejected', reason: { code: 'label_not_found' } });
    expect(mixed[1].status).toBe('fulfilled');
  });

  it('notices another writer between its commands: a kept state is proven by its append only', async () => {
    const labelId = await created();
    const folded = new FoldedStates<LabelState>();
    const batches = new CommandBatches(store, labelAggregate, folded);
    const stream = labelStream(labelId);
    await batches.run(stream, { type: 'SetShipDeadline', shipWithinHours: 24, at }, meta);
    // another process sets it back to 72 behind this one's back
    await handleCommand(
      store,
      labelAggregate,
      stream,
      { type: 'SetShipDeadline', shipWithinHours: 72, at },
      meta,
    );
    expect(folded.peek(stream)?.state).toMatchObject({ shipWithinHours: 24 });
    // on the kept state 24 -> 24 is nothing to do; on the stream as it is, it is a change
    const r = await batches.run(stream, { type: 'SetShipDeadline', shipWithinHours: 24, at }, meta);
    expect(r.events).toHaveLength(1);
    // and a change decided on the stale state meets the other's append and is decided again
    await handleCommand(
      store,
      labelAggregate,
      stream,
      { type: 'SetShipDeadline', shipWithinHours: 5, at },
      meta,
    );
    await batches.run(stream, { type: 'SetShipDeadline', shipWithinHours: 6, at }, meta);
    const hours = (await store.readStream(stream))
      .filter((e) => e.type === 'LabelShipDeadlineSet')
      .map((e) => e.data.shipWithinHours);
    expect(hours).toEqual([24, 72, 24, 5, 6]);
    const folds = await folded.read(store, labelAggregate, stream);
    expect(folds.state).toMatchObject({ shipWithinHours: 6 });
  });
  it('decides a command on a kept state unread, and on a read when that state may be behind', async () => {
    const labelId = await created();
    const stream = labelStream(labelId);
    /** the states commands were decided on, as their event ids were derived */
    const decidedOn: number[] = [];
    const set = (shipWithinHours: number, read?: StreamState<LabelState>) =>
      handleCommand(
        store,
        labelAggregate,
        stream,
        { type: 'SetShipDeadline', shipWithinHours, at },
        meta,
        read
          ? {
              read,
              eventIds: (_i, s) => {
                if (s.exists) decidedOn.push(s.shipWithinHours);
                return randomUUID();
              },
            }
          : {},
      );
    const keptAfter = (r: Awaited<ReturnType<typeof set>>) => ({
      revision: r.appended!.nextRevision,
      state: r.state,
      kept: true as const,
    });
    const mine = await set(24);
    // current: decided on it without a read, appended at its revision
    const onKept = await set(12, keptAfter(mine));
    expect(onKept.appended?.nextRevision).toBe(mine.appended!.nextRevision + 1n);
    expect(decidedOn).toEqual([24]);
    // behind: another writer moved the stream; nothing to do on the kept state (12 -> 12
    // is none) is decided again on the stream as it is (72 -> 12 is a change)
    const behind = keptAfter(onKept);
    await set(72);
    expect((await set(12, behind)).events).toHaveLength(1);
    expect(decidedOn).toEqual([24, 72]);
    // a change decided on a kept state that is behind meets the append and is decided
    // again, with ids from the state it was decided on at last
    await set(5);
    await set(6, behind);
    expect(decidedOn).toEqual([24, 72, 12, 5]);
    // a refusal on a kept state (here: no label yet) is decided again on a read
    const refused = await set(7, {
      revision: undefined,
      state: labelAggregate.decider.initialState,
      kept: true,
    });
    expect(refused.events).toHaveLength(1);
    const hours = (await store.readStream(stream))
      .filter((e) => e.type === 'LabelShipDeadlineSet')
      .map((e) => e.data.shipWithinHours);
    expect(hours).toEqual([24, 12, 72, 12, 5, 6, 7]);
  });
});
