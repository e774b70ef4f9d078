import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  id: string;
  /** the path it was POSTed to: one receiver serves several endpoints */
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  answered: number;
}

/**
 * `endless`: the body never ends (a chunk of 64 KiB at a time, until the client closes or 1 GiB
 * went)
 */
export type Mode = { status: number; headers?: Record<string, string>; endless?: boolean };

/**
 * A shop's receiver over real HTTP: answers what the test sets, keeps every request.
 * `answer` may be a function of the attempt count, to go down and come back.
 */
export async function startReceiver() {
  const requests: Received[] = [];
  let answer: (r: Received) => Mode = () => ({ status: 204 });
  let endlessSent = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers as IncomingHttpHeaders).map(([k, v]) => [k, String(v)]),
      );
      const r: Received = {
        id: headers['webhook-id'] ?? '',
        path: req.url ?? '',
        headers,
        body,
        at: Date.now(),
        answered: 0,
      };
      const mode = answer(r);
      r.answered = mode.status;
      requests.push(r);
      res.writeHead(mode.status, { 'content-type': 'text/plain', ...mode.headers });
      if (mode.endless) return sendEndlessly(res, (n) => (endlessSent += n));
      res.end(mode.status === 204 ? undefined : `answer ${mode.status}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: (p = '/hooks') => `http://127.0.0.1:${(server.address() as AddressInfo).port}${p}`,
    requests,
    answerWith(f: (r: Received) => Mode) {
      answer = f;
    },
    /** bytes written so far of endless answers (what the client let through before closing) */
    get endlessSent() {
      return endlessSent;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

export const parseMessage = (r: Received) =>
  JSON.parse(r.body) as {
    type: string;
    timestamp: string;
    data: { orderId: string; sequence: number } & Record<string, unknown>;
  };

const ENDLESS_CHUNK = Buffer.alloc(64 * 1024, 'x');
const ENDLESS_CAP = 1024 ** 3;

/**
 * Writes chunks as fast as the client takes them, until it closes the connection (or the cap, so
 * the test ends).
 */
function sendEndlessly(res: import('node:http').ServerResponse, sent: (n: number) => void): void {
  let total = 0;
  const more = () => {
    while (!res.destroyed && total < ENDLESS_CAP) {
      total += ENDLESS_CHUNK.length;
      sent(ENDLESS_CHUNK.length);
      if (!res.write(ENDLESS_CHUNK)) return void res.once('drain', more);
    }
    res.end();
  };
  res.on('close', () => {
    total = ENDLESS_CAP;
  });
  more();
}
