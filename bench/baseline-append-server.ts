// The baseline of bench/scans: a plain fastify route behind an API-key check that
// appends one row to PostgreSQL, as small as an authenticated write can be.
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const [port, databaseUrl, key] = process.argv.slice(2) as [string, string, string];
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const keyHash = sha(key);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
await pool.query(`CREATE TABLE IF NOT EXISTS bench_scans (
  id bigserial PRIMARY KEY, code text NOT NULL, stage text NOT NULL, station text,
  at timestamptz NOT NULL DEFAULT now())`);
const app = Fastify({ logger: false });
app.addHook('onRequest', async (request, reply) => {
  const presented = request.headers['x-api-key'];
  if (typeof presented !== 'string' || sha(presented) !== keyHash)
    return reply.code(401).send({ code: 'unknown_api_key' });
});
app.post<{ Body: { code: string; stage: string; station?: string } }>('/scans', async (request) => {
  const { code, stage, station } = request.body;
  await pool.query('INSERT INTO bench_scans (code, stage, station) VALUES ($1, $2, $3)', [
    code,
    stage,
    station ?? null,
  ]);
  return { code, stage };
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
