import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from '../db/change-feed.ts';

interface CachedResponse {
  headers: Record<string, string>;
  /** bytes, not a string: a hit then skips encoding the body again */
  body: Buffer;
}

export interface ResponseCacheOptions {
  feed: ChangeFeed;
  /** the projections the responses are read from: a change to any of them empties the cache */
  readModels: string[];
  /** what makes two requests' answers equal, e.g. the caller's label and the URL */
  key: (request: FastifyRequest) => string;
  maxBytes?: number;
}

/** per request, per instance: never cached, whatever the route set */
const NOT_CACHED = new Set(['x-request-id', 'content-length', 'date', 'connection']);

/**
 * Answers repeated reads of the calling plugin's routes from memory: the serialised
 * 200 body and its headers, kept until one of the read models behind them changes
 * (told by the change feed, so another process's projector empties it too). Call it
 * after adding the plugin's authentication hooks: they still run on every request;
 * validation, the database reads and serialisation are what a hit saves. A response
 * whose reads overlapped a change is not kept; while the feed is not live every
 * request goes to the database.
 */
export function cacheResponses(app: FastifyInstance, options: ResponseCacheOptions): void {
  const { feed } = options;
  const cache = new LRUCache<string, CachedResponse>({
    maxSize: options.maxBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (r) => r.body.length + 256,
  });
  let generation = 0;
  /** commits of the read models under way in this process: nothing is served or kept meanwhile */
  let committing = 0;
  const relevant = new Set(options.readModels);
  feed.subscribe((change) => {
    if (change.kind === 'stream') return;
    if (change.kind === 'readModel') {
      if (!relevant.has(change.projection)) return;
      if (change.phase === 'committing') committing++;
      if (change.phase === 'committed') committing = Math.max(0, committing - 1);
    }
    generation++;
    cache.clear();
  });
  const usable = () => feed.live && committing === 0;

  const filling = new WeakMap<FastifyRequest, { key: string; generation: number }>();

  // onRequest, after the plugin's authentication hooks: an answer kept for this URL
  // passed validation already (it depends on the URL alone), so a hit skips the rest
  app.addHook('onRequest', async (request, reply) => {
    if (!usable() || (request.method !== 'GET' && request.method !== 'HEAD')) return;
    const key = options.key(request);
    const hit = cache.get(key);
    if (hit) return reply.headers(hit.headers).send(hit.body);
    filling.set(request, { key, generation });
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const fill = filling.get(request);
    if (!fill || reply.statusCode !== 200 || typeof payload !== 'string') return;
    if (!usable() || fill.generation !== generation) return;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined && !NOT_CACHED.has(name)) headers[name] = String(value);
    }
    cache.set(fill.key, { headers, body: Buffer.from(payload) });
  });
}
