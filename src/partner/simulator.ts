import { randomBytes, randomUUID, scryptSync, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A partner's three callbacks as a real HTTP server, for the demo and the tests: a small
 * user table and switchable failures. Passwords are kept only in the table, never in
 * the request log.
 */
export type SimMode =
  | 'normal'
  | 'reject' // 400 with a { message, code } body
  | 'fail' // 500 with a { message, code } body
  | 'slow' // answers normally after `delayMs`
  | 'empty' // 201 with {}
  | 'html' // 201 with an HTML page
  | 'nul' // 201 with a user whose id holds a NUL character
  | 'redirect'; // 302 elsewhere

export interface SimRequest {
  path: string;
  apiKey: string | undefined;
  body: Record<string, unknown>;
}

export interface PartnerSimulator {
  url: string;
  requests: SimRequest[];
  setMode(mode: SimMode, delayMs?: number): void;
  addUser(user: {
    userName: string;
    password: string;
    firstName?: string;
    lastName?: string;
  }): string;
  stop(): Promise<void>;
}

interface SimUser {
  id: string;
  userName: string;
  /** scrypt of the password with its salt: `<salt hex>:<hash hex>` */
  passwordHash: string;
  firstName?: string;
  lastName?: string;
}

const hashPassword = (password: string, salt = randomBytes(16).toString('hex')) =>
  `${salt}:${scryptSync(password, salt, 32).toString('hex')}`;
const passwordMatches = (password: string, stored: string) => {
  const [salt, hash] = stored.split(':');
  const actual = Buffer.from(hashPassword(password, salt).split(':')[1]!, 'hex');
  const expected = Buffer.from(hash ?? '', 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
};

/**
 * A stand-in for a partner's login system. With `usersFile` it keeps the accounts made
 * through it (passwords as salted scrypt hashes) in that file, owner-only, across
 * restarts; without, it forgets them when it stops.
 */
export async function startPartnerSimulator(options: {
  apiKey: string;
  port?: number;
  host?: string;
  usersFile?: string;
}): Promise<PartnerSimulator> {
  const users = new Map<string, SimUser>();
  if (options.usersFile && existsSync(options.usersFile)) {
    for (const u of JSON.parse(readFileSync(options.usersFile, 'utf8')) as SimUser[])
      users.set(u.userName.toLowerCase(), u);
  }
  const save = () => {
    if (options.usersFile)
      writeFileSync(options.usersFile, JSON.stringify([...users.values()], null, 1), {
        mode: 0o600,
      });
  };
  const requests: SimRequest[] = [];
  let mode: SimMode = 'normal';
  let delayMs = 0;

  const addUser = (u: {
    userName: string;
    password: string;
    firstName?: string | undefined;
    lastName?: string | undefined;
  }) => {
    const id = `p-${randomUUID().slice(0, 8)}`;
    const { password, ...rest } = u;
    users.set(u.userName.toLowerCase(), { id, ...rest, passwordHash: hashPassword(password) });
    save();
    return id;
  };
  if (!users.has('demo@example.com')) {
    addUser({
      userName: 'demo@example.com',
      password: 'demo-password',
      firstName: 'Demo',
      lastName: 'User',
    });
  }

  const send = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    type = 'application/json',
  ) => {
    res.writeHead(status, { 'content-type': type });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const record = (u: SimUser) => ({
    id: u.id,
    firstName: u.firstName,
    lastName: u.lastName,
    userName: u.userName,
  });

  function answer(path: string, body: Record<string, unknown>, res: http.ServerResponse) {
    const userName = String(body.userName ?? '').toLowerCase();
    switch (path) {
      case '/signup': {
        if (users.has(userName))
          return send(res, 409, {
            message: 'An account with this user name exists already.',
            code: 'USER_EXISTS',
          });
        if (String(body.password ?? '').length < 8)
          return send(res, 422, {
            message: 'The password needs at least 8 characters.',
            code: 'WEAK_PASSWORD',
          });
        const id = addUser({
          userName: String(body.userName),
          password: String(body.password),
          firstName: body.firstName as string | undefined,
          lastName: body.lastName as string | undefined,
        });
        return send(res, 201, record(users.get(userName) ?? { id, userName, passwordHash: '' }));
      }
      case '/login': {
        const u = users.get(userName);
        if (!u || !passwordMatches(String(body.password ?? ''), u.passwordHash)) {
          return send(res, 401, {
            message: 'Wrong user name or password.',
            code: 'INVALID_CREDENTIALS',
          });
        }
        return send(res, 201, record(u));
      }
      case '/forgot-password':
        return users.has(userName)
          ? send(res, 201, {
              header: 'Check your inbox',
              body: 'We have sent you a link to choose a new password.',
            })
          : send(res, 201, {
              header: 'Unknown user',
              body: 'There is no account with this user name.',
            });
      default:
        return send(res, 404, { message: 'no such callback' });
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return send(res, 400, { message: 'malformed JSON' });
      }
      const path = (req.url ?? '/').split('?')[0]!;
      const apiKey = req.headers['x-api-key'] as string | undefined;
      const { password: _secret, ...logged } = body;
      requests.push({ path, apiKey, body: logged });
      if (req.method !== 'POST') return send(res, 405, { message: 'POST only' });
      if (apiKey !== options.apiKey)
        return send(res, 401, { message: 'Unknown API key.', code: 'BAD_API_KEY' });
      const go = () => {
        switch (mode) {
          case 'reject':
            return send(res, 400, {
              message: 'The partner rejected the request.',
              code: 'SIM_REJECT',
            });
          case 'fail':
            return send(res, 500, { message: 'Internal partner error.', code: 'SIM_FAIL' });
          case 'empty':
            return send(res, 201, {});
          case 'html':
            return send(res, 201, '<html><body>Welcome!</body></html>', 'text/html');
          case 'nul':
            return send(res, 201, { id: 'user\u0000id', firstName: 'N\u0000' });
          case 'redirect':
            res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
            return res.end();
          default:
            return answer(path, body, res);
        }
      };
      if (mode === 'slow') setTimeout(go, delayMs);
      else go();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject); // e.g. the port is taken
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setMode(m, d = 0) {
      mode = m;
      delayMs = d;
    },
    addUser: (u) => addUser(u),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
