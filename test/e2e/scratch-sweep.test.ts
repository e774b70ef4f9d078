import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.ts';
import { shopOfProcesses, testEnv } from '../helpers/app.ts';
import { halfUpload } from '../helpers/half-upload.ts';
import { type Shop, until } from '../helpers/orders.ts';
import { type AppProcess, spawnApp } from '../helpers/spawn-app.ts';

/**
 * A process of the service killed with -9 in the middle of a data set upload leaves the part it
 * had received in its scratch folder: the next start of a process on this machine
 * removes it. The processes have a temporary folder of their own, so nothing another
 * test file does meanwhile is counted.
 */
describe('scratch folders of a killed process', () => {
  let env: Record<string, string>;
  let api: AppProcess | undefined;
  let db: Database;
  let shop: Shop;
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'scratch-'));
  const leftovers = () => readdirSync(tmp).filter((n) => n.startsWith('dataset-'));

  beforeAll(async () => {
    env = await testEnv({ LOG_LEVEL: 'info', TMPDIR: tmp });
    api = await spawnApp('all', env);
    ({ db, shop } = await shopOfProcesses(api.url, env));
  }, 180_000);
  afterAll(async () => {
    await api?.kill('SIGTERM');
    await db?.close();
  });

  it('removes at the next start what an upload killed with -9 halfway had written', async () => {
    const req = halfUpload(api!.url, shop.adminKey);
    const received = await until(
      'the first megabytes of the upload on disk',
      async () => {
        const [dir] = leftovers();
        const body = dir && path.join(tmp, dir, 'body');
        return body && statSync(body, { throwIfNoEntry: false })?.size ? dir : undefined;
      },
      60_000,
    );
    await api!.kill('SIGKILL');
    req.destroy();
    // nobody was left to remove it
    expect(leftovers()).toEqual([received]);

    api = await spawnApp('all', env);
    await api.waitFor('removed the scratch folders of dead processes');
    expect(leftovers()).toEqual([]);
  }, 300_000);
});
