import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  id: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  answered: number;
}

export type Mode = { status: number; headers?: Record<string, string> };

/**
 * A shop's receiver over real HTTP: answers what the test sets, keeps every request.
 * `answer` may be a function of the attempt count, to go down and come back.
 */
export async function startReceiver() {
  const requests: Received[] = [];
  let answer: (r: Received) => Mode = () => ({ status: 204 });
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
        headers,
        body,
        at: Date.now(),
        answered: 0,
      };
      const mode = answer(r);
      r.answered = mode.status;
      requests.push(r);
      res.writeHead(mode.status, { 'content-type': 'text/plain', ...mode.headers });
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
    close: () => new Promise((r) => server.close(r)),
  };
}

export const parseMessage = (r: Received) =>
  JSON.parse(r.body) as {
    type: string;
    timestamp: string;
    data: { orderId: string; sequence: number } & Record<string, unknown>;
  };
