// The baseline of bench/api: a plain fastify route answering a constant JSON body.
import Fastify from 'fastify';

const body = { status: 'ok', items: [{ sku: 'BASELINE-1', printColors: 2 }] };
const app = Fastify({ logger: false });
app.get('/baseline', async () => body);
await app.listen({ port: Number(process.argv[2]), host: '127.0.0.1' });
