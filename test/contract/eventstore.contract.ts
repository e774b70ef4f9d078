import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  comparePositions,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  START,
  storedFields,
  WrongExpectedRevisionError,
} from '../../src/eventstore/port.ts';

export interface StoreUnderTest {
  store: EventStore;
  cleanup(): Promise<void>;
}

const ev = (type: string, data: Record<string, unknown> = {}): NewEvent => ({
  id: randomUUID(),
  type,
  schemaVersion: 1,
  data,
  metadata: { correlationId: 'c-1', actor: 'test' },
});

const stream = (p: string) => `${p}-${randomUUID()}`;

async function expectConflict(p: Promise<unknown>, actual: bigint | 'no_stream') {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WrongExpectedRevisionError);
  expect((err as WrongExpectedRevisionError).actual).toBe(actual);
}

/**
 * Until readers of all events can see a position: on PostgreSQL a transaction still open
 * anywhere in the cluster (another test's) holds the read horizon back for a moment.
 */
async function visible(store: EventStore, position: { commit: bigint; prepare: bigint }) {
  for (let i = 0; i < 1000; i++) {
    if (comparePositions(await store.headPosition(), position) >= 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the position never became visible');
}

async function readEverything(store: EventStore): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  let after = START;
  for (;;) {
    const page = await store.readAll({ after, limit: 500 });
    if (page.length === 0) return out;
    out.push(...page);
    after = page[page.length - 1]!.position;
  }
}

/** The behaviour every EventStore adapter must show; run once per adapter. */
export function eventStoreContract(name: string, open: () => Promise<StoreUnderTest>) {
  describe(`event store contract: ${name}`, () => {
    let sut: StoreUnderTest;
    let store: EventStore;
    beforeAll(async () => {
      sut = await open();
      store = sut.store;
    });
    afterAll(async () => {
      await sut?.cleanup();
    });

    it('appends to a new stream with no_stream and reads the events back in order', async () => {
      const s = stream('Order');
      const events = [
        ev('A', { n: 1, text: 'Grüße ✓' }),
        ev('B', { n: 2 }),
        ev('C', { nested: { a: [1, 2] } }),
      ];
      const r = await store.append(s, events, 'no_stream');
      expect(r.nextRevision).toBe(2n);
      const read = await store.readStream(s);
      expect(read.map((e) => [e.type, e.revision, e.id])).toEqual(
        events.map((e, i) => [e.type, BigInt(i), e.id]),
      );
      expect(read[0]!.data).toEqual({ n: 1, text: 'Grüße ✓' });
      expect(read[2]!.data).toEqual({ nested: { a: [1, 2] } });
      expect(read[0]!.metadata).toEqual({ correlationId: 'c-1', actor: 'test' });
      expect(read[0]!.schemaVersion).toBe(1);
      expect(read[0]!.streamId).toBe(s);
      expect(read[0]!.recordedAt).toBeInstanceOf(Date);
      expect(comparePositions(read[2]!.position, r.position)).toBe(0);
    });

    it('keeps the schema version of each event', async () => {
      const s = stream('Versioned');
      await store.append(s, [{ ...ev('V'), schemaVersion: 3 }], 'no_stream');
      expect((await store.readStream(s))[0]!.schemaVersion).toBe(3);
    });

    it('rejects no_stream on an existing stream and appends nothing', async () => {
      const s = stream('Order');
      await store.append(s, [ev('A')], 'no_stream');
      await expectConflict(store.append(s, [ev('B'), ev('C')], 'no_stream'), 0n);
      expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A']);
    });

    it('appends at the exact current revision and rejects a stale one atomically', async () => {
      const s = stream('Order');
      await store.append(s, [ev('A'), ev('B')], 'no_stream');
      const r = await store.append(s, [ev('C')], 1n);
      expect(r.nextRevision).toBe(2n);
      await expectConflict(store.append(s, [ev('D'), ev('E')], 1n), 2n);
      expect((await store.readStream(s)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    });

    it('rejects an exact revision on a missing stream', async () => {
      await expectConflict(store.append(stream('Missing'), [ev('A')], 0n), 'no_stream');
    });

    it('appends with any whether or not the stream exists', async () => {
      const s = stream('Any');
      expect((await store.append(s, [ev('A')], 'any')).nextRevision).toBe(0n);
      expect((await store.append(s, [ev('B'), ev('C')], 'any')).nextRevision).toBe(2n);
      expect((await store.readStream(s)).map((e) => e.revision)).toEqual([0n, 1n, 2n]);
    });

    it('treats appending the same event ids again as done (idempotent retry)', async () => {
      const s = stream('Idem');
      const events = [ev('A'), ev('B')];
      const first = await store.append(s, events, 'no_stream');
      const again = await store.append(s, events, 'no_stream');
      expect(again.nextRevision).toBe(first.nextRevision);
      expect((await store.readStream(s)).map((e) => e.id)).toEqual(events.map((e) => e.id));
      // a different event at the same place is still a conflict
      await expectConflict(store.append(s, [ev('C')], 'no_stream'), 1n);
    });

    it('appends one event to each of many streams, new or not, and skips ids already there', async () => {
      const old = stream('Each');
      const fresh = stream('Each');
      const kept = ev('A');
      await store.append(old, [kept], 'no_stream');
      const next = ev('B');
      const first = ev('X');
      await store.appendEach([
        { streamId: old, event: next },
        { streamId: fresh, event: first },
      ]);
      // a repeated batch (an attempt recorded again) changes nothing
      await store.appendEach([
        { streamId: old, event: next },
        { streamId: fresh, event: first },
      ]);
      expect((await store.readStream(old)).map((e) => [e.id, e.revision])).toEqual([
        [kept.id, 0n],
        [next.id, 1n],
      ]);
      expect((await store.readStream(fresh)).map((e) => [e.id, e.revision])).toEqual([
        [first.id, 0n],
      ]);
      await expect(
        store.appendEach([
          { streamId: fresh, event: ev('C') },
          { streamId: fresh, event: ev('D') },
        ]),
      ).rejects.toThrow();
    });

    it('reads a stream from a revision on: the tail, or nothing past the end', async () => {
      const s = stream('Tail');
      await store.append(s, [ev('A'), ev('B'), ev('C')], 'no_stream');
      expect((await store.readStream(s, 1n)).map((e) => [e.type, e.revision])).toEqual([
        ['B', 1n],
        ['C', 2n],
      ]);
      expect((await store.readStream(s, 0n)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
      expect(await store.readStream(s, 3n)).toEqual([]);
      expect(await store.readStream(stream('NoTail'), 2n)).toEqual([]);
    });

    it('reads streams asked for at once each as alone: tails, missing ones, one stream twice', async () => {
      const a = stream('AtOnceA');
      const b = stream('AtOnceB');
      await store.append(a, [ev('A1'), ev('A2')], 'no_stream');
      await store.append(b, [ev('B1'), ev('B2'), ev('B3')], 'no_stream');
      const reads = await Promise.all([
        store.readStream(a),
        store.readStream(b, 1n),
        store.readStream(stream('AtOnceMissing')),
        store.readStream(a, 1n),
        store.readStream(b, 5n),
      ]);
      expect(reads.map((r) => r.map((e) => [e.type, e.revision]))).toEqual([
        [
          ['A1', 0n],
          ['A2', 1n],
        ],
        [
          ['B2', 1n],
          ['B3', 2n],
        ],
        [],
        [['A2', 1n]],
        [],
      ]);
      // each its own events: one caller's change is not another's
      (reads[3]![0]!.data as Record<string, unknown>).changed = true;
      expect(reads[0]![1]!.data).not.toHaveProperty('changed');
    });

    it('reads a missing stream as empty', async () => {
      expect(await store.readStream(stream('Nothing'))).toEqual([]);
    });

    it('reads all events in one global order, after an exclusive position, in pages', async () => {
      const s1 = stream('G1');
      const s2 = stream('G2');
      const head = await store.headPosition();
      await store.append(s1, [ev('A')], 'no_stream');
      await store.append(s2, [ev('B'), ev('C')], 'no_stream');
      const last = await store.append(s1, [ev('D')], 0n);
      await visible(store, last.position);
      const after = await store.readAll({ after: head, limit: 100 });
      const mine = after.filter((e) => e.streamId === s1 || e.streamId === s2);
      expect(mine.map((e) => e.type)).toEqual(['A', 'B', 'C', 'D']);
      for (let i = 1; i < after.length; i++) {
        expect(comparePositions(after[i - 1]!.position, after[i]!.position)).toBe(-1);
      }
      const page = await store.readAll({ after: head, limit: 2 });
      expect(page).toHaveLength(2);
      const rest = await store.readAll({ after: page[1]!.position, limit: 100 });
      expect([...page, ...rest].map((e) => e.id)).toEqual(after.map((e) => e.id));
      expect(comparePositions(await store.headPosition(), after[after.length - 1]!.position)).toBe(
        0,
      );
      expect(await store.countAfter(head, 1000)).toBe(after.length);
    });

    it('may leave out the data of types a reader does not look into, never the events', async () => {
      const s = stream('Sparse');
      const head = await store.headPosition();
      const { position } = await store.append(
        s,
        [ev('Wanted', { n: 1 }), ev('Other', { big: 'x'.repeat(1000) })],
        'no_stream',
      );
      await visible(store, position);
      const page = (await store.readAll({ after: head, limit: 100, dataOf: ['Wanted'] })).filter(
        (e) => e.streamId === s,
      );
      expect(page.map((e) => e.type)).toEqual(['Wanted', 'Other']);
      expect(page[0]!.data).toEqual({ n: 1 });
      expect(page[1]!.data.big).toBeUndefined();
    });

    it('gives a reader asking for views the same events, their fields as stored', async () => {
      const s = stream('Views');
      const head = await store.headPosition();
      const { position } = await store.append(
        s,
        [ev('Viewed', { text: 'caf\u00e9 \u{1F600}', n: [1, 2] }), ev('Viewed', {})],
        'no_stream',
      );
      await visible(store, position);
      const ours = (page: RecordedEvent[]) => page.filter((e) => e.streamId === s);
      const [plain, views] = await Promise.all([
        store.readAll({ after: head, limit: 100 }).then(ours),
        store.readAll({ after: head, limit: 100, views: true }).then(ours),
      ]);
      const fields = (e: RecordedEvent) => ({
        id: e.id,
        streamId: e.streamId,
        revision: e.revision,
        type: e.type,
        schemaVersion: e.schemaVersion,
        position: e.position,
        recordedAt: e.recordedAt,
        data: e.data,
        metadata: e.metadata,
      });
      expect(views).toHaveLength(2);
      expect(views.map(fields)).toEqual(plain.map(fields));
      expect(views.map(storedFields)).toEqual(plain.map(storedFields));
      expect(storedFields(views[0]!)).toEqual([
        s,
        '0',
        views[0]!.id,
        'Viewed',
        '1',
        JSON.stringify({ text: 'caf\u00e9 \u{1F600}', n: [1, 2] }),
        JSON.stringify({ correlationId: 'c-1', actor: 'test' }),
      ]);
      // written out whole, as an ordinary event is
      const written = (e: RecordedEvent) =>
        JSON.stringify(e, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
      expect(JSON.parse(written(views[0]!))).toEqual(JSON.parse(written(plain[0]!)));
    });

    it('gives readers at one position at once the same page, each the data it looks into, each its own', async () => {
      const s = stream('Shared');
      const head = await store.headPosition();
      const { position } = await store.append(
        s,
        [ev('Left', { side: 'left' }), ev('Right', { side: 'right' })],
        'no_stream',
      );
      await visible(store, position);
      const ours = (page: RecordedEvent[]) => page.filter((e) => e.streamId === s);
      const [left, right, all] = (
        await Promise.all([
          store.readAll({ after: head, limit: 100, dataOf: ['Left'] }),
          store.readAll({ after: head, limit: 100, dataOf: ['Right'] }),
          store.readAll({ after: head, limit: 100 }),
        ])
      ).map(ours) as [RecordedEvent[], RecordedEvent[], RecordedEvent[]];
      for (const page of [left, right, all])
        expect(page.map((e) => e.type)).toEqual(['Left', 'Right']);
      expect(left[0]!.data).toEqual({ side: 'left' });
      expect(right[1]!.data).toEqual({ side: 'right' });
      expect(all.map((e) => e.data)).toEqual([{ side: 'left' }, { side: 'right' }]);
      // what one reader does to its events, another does not see
      (all[0]!.data as { side: string }).side = 'changed';
      expect(left[0]!.data).toEqual({ side: 'left' });
    });

    it('gives readers at different positions at once each the page it would read alone', async () => {
      const s = stream('Apart');
      const head = await store.headPosition();
      const types = ['A', 'B', 'C', 'D', 'E', 'F'];
      const { position } = await store.append(
        s,
        types.map((t) => ev(t, { t })),
        'no_stream',
      );
      await visible(store, position);
      const mine = (await store.readAll({ after: head, limit: 1000 })).filter(
        (e) => e.streamId === s,
      );
      expect(mine.map((e) => e.type)).toEqual(types);
      const at = (i: number) => mine[i]!.position;
      const asks = [
        { after: head, limit: 2, dataOf: ['A'] },
        { after: at(1), limit: 3, dataOf: ['D'] },
        { after: at(3), limit: 10 },
        { after: at(5), limit: 5, dataOf: [] },
        { after: at(0), limit: 1, dataOf: ['B'] },
      ];
      const together = await Promise.all(asks.map((q) => store.readAll(q)));
      const alone: RecordedEvent[][] = [];
      for (const q of asks) alone.push(await store.readAll(q));
      const shape = (page: RecordedEvent[]) => page.map((e) => [e.id, e.type, e.position]);
      expect(together.map(shape)).toEqual(alone.map(shape));
      // only events of this test: nothing else was appended meanwhile
      expect(together.map((page) => page.map((e) => e.type))).toEqual([
        ['A', 'B'],
        ['C', 'D', 'E'],
        ['E', 'F'],
        [],
        ['B'],
      ]);
      expect(together[0]![0]!.data).toEqual({ t: 'A' });
      expect(together[1]![1]!.data).toEqual({ t: 'D' });
      expect(together[2]!.map((e) => e.data)).toEqual([{ t: 'E' }, { t: 'F' }]);
      expect(together[4]![0]!.data).toEqual({ t: 'B' });
      // E is in two pages: each reader its own
      (together[1]![2]!.data as { t: string }).t = 'changed';
      expect(together[2]![0]!.data).toEqual({ t: 'E' });
      // a page the earliest reader fills says nothing of the events after it: the reader
      // beyond it gets its own page, not a short one
      const [early, late] = await Promise.all([
        store.readAll({ after: head, limit: 3 }),
        store.readAll({ after: at(3), limit: 2 }),
      ]);
      expect(early!.map((e) => e.type)).toEqual(['A', 'B', 'C']);
      expect(late!.map((e) => e.type)).toEqual(['E', 'F']);
    });

    it('subscribes to all events from a checkpoint and resumes after it', async () => {
      const s = stream('Sub');
      const head = await store.headPosition();
      await store.append(s, [ev('A'), ev('B')], 'no_stream');
      const seen: RecordedEvent[] = [];
      const sub = store.subscribeAll({ from: head }, async (e) => {
        if (e.streamId === s) seen.push(e);
      });
      await store.append(s, [ev('C')], 1n);
      await waitUntil(() => seen.length === 3);
      await sub.stop();
      expect(seen.map((e) => e.type)).toEqual(['A', 'B', 'C']);
      const resumed: string[] = [];
      const sub2 = store.subscribeAll({ from: seen[1]!.position }, async (e) => {
        if (e.streamId === s) resumed.push(e.type);
      });
      await store.append(s, [ev('D')], 2n);
      await waitUntil(() => resumed.length === 2);
      await sub2.stop();
      expect(resumed).toEqual(['C', 'D']);
    });

    it('never lets a subscriber skip or repeat an event while many connections append', async () => {
      const prefix = `Conc${randomUUID().slice(0, 8)}`;
      const appenders = 8;
      const perAppender = 40;
      const seen: RecordedEvent[] = [];
      const sub = store.subscribeAll({ from: await store.headPosition() }, async (e) => {
        if (e.streamId.startsWith(prefix)) seen.push(e);
      });
      const written: string[] = [];
      await Promise.all(
        Array.from({ length: appenders }, async (_, a) => {
          for (let i = 0; i < perAppender; i++) {
            // own streams with exact revisions, plus one stream shared by all with `any`
            const batch = Array.from({ length: 1 + (i % 3) }, () => ev('E', { a, i }));
            if (i % 4 === 0) await store.append(`${prefix}-shared`, batch, 'any');
            else await store.append(`${prefix}-own-${a}-${i}`, batch, 'no_stream');
            written.push(...batch.map((e) => e.id));
          }
        }),
      );
      await waitUntil(() => seen.length >= written.length, 30_000);
      await new Promise((r) => setTimeout(r, 200)); // would catch late duplicates
      await sub.stop();

      expect(seen).toHaveLength(written.length);
      expect(new Set(seen.map((e) => e.id)).size).toBe(written.length);
      expect(new Set(seen.map((e) => e.id))).toEqual(new Set(written));
      for (let i = 1; i < seen.length; i++) {
        expect(comparePositions(seen[i - 1]!.position, seen[i]!.position)).toBe(-1);
      }
      const shared = seen.filter((e) => e.streamId === `${prefix}-shared`).map((e) => e.revision);
      expect(shared).toEqual(shared.map((_, i) => BigInt(i)));
      // the live order is the order a later reader sees
      const later = (await readEverything(store)).filter((e) => e.streamId.startsWith(prefix));
      expect(later.map((e) => e.id)).toEqual(seen.map((e) => e.id));
    });
  });
}

export async function waitUntil(cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
