import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../src/db/change-feed.ts';
import { cacheResponses } from '../../src/http/response-cache.ts';

/** A route that answers how often its handler ran, behind the cache. */
async function counting(feed: ChangeFeed) {
  let runs = 0;
  const app = Fastify();
  await app.register(async (scope) => {
    cacheResponses(scope, { feed, readModels: ['offerings'], key: (r) => r.url });
    scope.get('/n', async (request, reply) => {
      runs++;
      if ((request.query as { missing?: string }).missing) return reply.code(404).send({ runs });
      return reply.header('x-total-records', String(runs)).send({ runs });
    });
  });
  const get = async (url = '/n') => {
    const r = await app.inject({ method: 'GET', url });
    return { status: r.statusCode, runs: r.json().runs, total: r.headers['x-total-records'] };
  };
  return { get, close: () => app.close() };
}

describe('response cache', () => {
  it('answers again from memory, headers included, until its read model changes', async () => {
    const feed = ChangeFeed.inProcess();
    const { get, close } = await counting(feed);
    expect(await get()).toEqual({ status: 200, runs: 1, total: '1' });
    expect(await get()).toEqual({ status: 200, runs: 1, total: '1' });
    feed.publish({ kind: 'readModel', projection: 'prices', phase: 'seen' });
    feed.publish({ kind: 'stream', streamId: 'Label-1' });
    expect((await get()).runs).toBe(1);
    feed.publish({ kind: 'readModel', projection: 'offerings', phase: 'seen' });
    expect((await get()).runs).toBe(2);
    feed.publish({ kind: 'unknown' });
    expect((await get()).runs).toBe(3);
    expect((await get()).runs).toBe(3);
    await close();
  });

  it('neither serves nor keeps while this process commits a change to the read model', async () => {
    const feed = ChangeFeed.inProcess();
    const { get, close } = await counting(feed);
    await get();
    feed.publish({ kind: 'readModel', projection: 'offerings', phase: 'committing' });
    expect((await get()).runs).toBe(2);
    expect((await get()).runs).toBe(3);
    feed.publish({ kind: 'readModel', projection: 'offerings', phase: 'committed' });
    expect((await get()).runs).toBe(4);
    expect((await get()).runs).toBe(4);
    await close();
  });

  it('keeps only 200s, and nothing while the feed is not live', async () => {
    const live = await counting(ChangeFeed.inProcess());
    expect(await live.get('/n?missing=1')).toMatchObject({ status: 404, runs: 1 });
    expect(await live.get('/n?missing=1')).toMatchObject({ status: 404, runs: 2 });
    await live.close();
    const down = ChangeFeed.inProcess();
    down.live = false; // as while a listening connection is lost
    const off = await counting(down);
    expect((await off.get()).runs).toBe(1);
    expect((await off.get()).runs).toBe(2);
    await off.close();
  });
});
