import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ActivityDeps, createActivities } from '../../src/activities/index.ts';
import { orderStream } from '../../src/domain/order/events.ts';
import { Renders } from '../../src/print/image-work.ts';
import { Impositions } from '../../src/production/imposition-work.ts';
import { ReactionRunner } from '../../src/reactions/reactor.ts';
import { workflowStartsReactor } from '../../src/reactions/workflow-starts.ts';
import { FilesystemStorage } from '../../src/storage/filesystem.ts';
import { createWorker } from '../../src/temporal/worker.ts';
import { client, joiningEnv, startTestApp, type TestApp } from '../helpers/app.ts';
import {
  config,
  editorUser,
  importCatalog,
  newIntegration,
  newLabel,
  settled,
  workflowResult,
} from '../helpers/fixtures.ts';
import { expectOnlyPrintFiles } from '../helpers/orders.ts';
import { renderProcesses } from '../helpers/render-processes.ts';

async function orderReady(
  call: ReturnType<typeof client>,
  key: string,
  orderId: string,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call('GET', `/api/orders/${orderId}`, { key });
    if (r.body?.status === 'ready' || r.body?.status === 'failed') return r.body;
    if (Date.now() > deadline) throw new Error(`order not done: ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** A worker of the app's task queue in this process, on the app's database and data folder. */
async function runWorker(
  t: TestApp,
  deps: Pick<ActivityDeps, 'store' | 'storage' | 'images' | 'renders'>,
) {
  const worker = await createWorker(
    t.app.temporal!.target,
    createActivities({
      ...deps,
      stores: { dataDir: t.config.dataDir },
      db: t.app.db.pool,
      // no press run here: the pool starts no process until one is imposed
      impositions: new Impositions(),
    }),
  );
  const running = worker.run();
  return {
    async stop() {
      worker.worker.shutdown();
      await running;
      await worker.close();
    },
  };
}

async function setup(t: TestApp) {
  const call = client(t.url);
  const label = await newLabel(call, t, 'Faults');
  const shop = await newIntegration(call, t, label.adminApiKey, false);
  await importCatalog(call, t, 'supplier-a', [config('TEE-1')]);
  const { token } = await editorUser(t, label.labelId, `u-${randomUUID()}`);
  const projects: string[] = [];
  for (const text of ['one', 'two']) {
    const p = await call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${token}` },
      body: {
        name: text,
        sku: 'TEE-1',
        supplier: 'supplier-a',
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [{ type: 'text', text, x: 1, y: 1, fontSize: 12, color: '#000000' }],
            },
          ],
        },
      },
    });
    projects.push(p.body.id);
  }
  return { call, label, shop, projects };
}

describe('a worker killed while rendering', () => {
  let t: TestApp;
  let stalling: ChildProcess | undefined;
  let reactions: ReactionRunner;
  beforeAll(async () => {
    // API, projector and the reactor that starts workflows here; the only worker at
    // first is a separate process
    t = await startTestApp({}, { roles: ['api', 'projector'] });
    reactions = new ReactionRunner(
      t.app.db.pool,
      t.app.store,
      [workflowStartsReactor(t.app.temporal!.starts, t.app.store)],
      pino({ level: 'silent' }),
    );
    reactions.start();
  });
  afterAll(async () => {
    stalling?.kill('SIGKILL');
    await reactions?.stop();
    await t?.stop();
  });

  it('is replaced by another: the order ends ready, one PrintFileGenerated per item, no stray files', async () => {
    let out = '';
    stalling = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/stalling-worker.ts'], {
      env: {
        ...process.env,
        ...joiningEnv(t),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stalling.stdout!.on('data', (d) => (out += d));
    stalling.stderr!.on('data', (d) => (out += d));
    for (let i = 0; !out.includes('worker running') && i < 600; i++)
      await new Promise((res) => setTimeout(res, 100));
    const { call, label, shop, projects } = await setup(t);
    const orderId = `CRASH-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.apiKey,
      body: {
        orderId,
        items: projects.map((projectId, n) => ({ itemId: `l${n}`, projectId, quantity: 1 })),
      },
    });
    expect(r.status).toBe(200);
    // wait until the worker wrote a print file and stalled before recording it, then kill it
    for (let i = 0; !out.includes('stalled') && i < 600; i++)
      await new Promise((res) => setTimeout(res, 100));
    expect(out).toContain('stalled');
    // gone for certain before the replacement starts: until its parent reaps it, a killed
    // process still counts as alive, and its temporary folder would be kept
    const gone = once(stalling, 'exit');
    stalling.kill('SIGKILL');
    await gone;
    stalling = undefined;

    // the replacement starts as a restarted worker would: opening the storage clears the
    // temporary files of the killed process
    const storage = await FilesystemStorage.open(path.join(t.config.dataDir, 'print-files'));
    const images = await FilesystemStorage.open(path.join(t.config.dataDir, 'images'));
    const renders = new Renders(1, 60_000);
    const replacement = await runWorker(t, { store: t.app.store, storage, images, renders });
    try {
      const order = await orderReady(call, label.adminApiKey, orderId, 60_000);
      expect(order.status).toBe('ready');
      await settled(t);
      const generated = await t.app.db.pool.query(
        "SELECT data->>'orderItemId' AS id, count(*)::int AS n FROM es_events WHERE type = 'PrintFileGenerated' AND stream_id LIKE $1 GROUP BY 1",
        [`Order-${label.labelId}-%`],
      );
      expect(generated.rows.map((x: { n: number }) => x.n)).toEqual([1, 1]);
      const files = await t.app.storage.list(label.labelId);
      expect(order.items.map((i: { printFiles: unknown[] }) => i.printFiles.length)).toEqual([
        1, 1,
      ]);
      expectOnlyPrintFiles(files, label.labelId, order);
      // a preview drawn after the order is ready may be on its way in for a moment; a
      // stray file is one that stays
      const leftovers = () =>
        readdirSync(path.join(t.config.dataDir, 'print-files', '.tmp'), {
          recursive: true,
          withFileTypes: true,
        })
          .filter((e) => e.isFile())
          .map((e) => e.name);
      for (let i = 0; leftovers().length > 0 && i < 50; i++)
        await new Promise((res) => setTimeout(res, 200));
      expect(leftovers()).toEqual([]);
    } finally {
      await replacement.stop();
      await renders.close();
    }
  }, 120_000);

  it('records no file while the order could not start rendering, and the same file once it could', async () => {
    // the append that starts an order's rendering fails once (the database gone for a
    // moment), while the render beside it runs to its end
    let refused = 0;
    const store = new Proxy(t.app.store, {
      get(target, prop) {
        if (prop === 'append')
          return (streamId: string, events: { type: string }[], ...rest: [never]) => {
            if (events.some((e) => e.type === 'OrderRenderingStarted') && refused++ === 0)
              return Promise.reject(new Error('connection terminated'));
            return target.append(streamId, events as never, ...rest);
          };
        const v = Reflect.get(target, prop, target);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const renders = new Renders(1, 60_000);
    let rendered = 0;
    const counted = {
      render: (...args: Parameters<Renders['render']>) =>
        renders.render(...args).then((x) => {
          rendered++;
          return x;
        }),
      renderVariable: (...args: Parameters<Renders['renderVariable']>) =>
        renders.renderVariable(...args),
      reprintVariable: (...args: Parameters<Renders['reprintVariable']>) =>
        renders.reprintVariable(...args),
    };
    const worker = await runWorker(t, {
      store,
      storage: t.app.storage,
      images: t.app.images,
      renders: counted,
    });
    try {
      const { call, label, shop, projects } = await setup(t);
      const orderId = `NOSTART-${randomUUID().slice(0, 8)}`;
      const r = await call('POST', '/webhook/notifyorder', {
        key: shop.apiKey,
        body: { orderId, items: [{ itemId: 'l0', projectId: projects[0], quantity: 1 }] },
      });
      expect(r.status).toBe(200);
      const order = await orderReady(call, label.adminApiKey, orderId, 60_000);
      expect(order.status).toBe('ready');
      expect(refused).toBeGreaterThanOrEqual(1);
      // the first attempt rendered and recorded nothing; its retry recorded one file
      expect(rendered).toBe(2);
      const events = await t.app.store.readStream(orderStream(label.labelId, orderId));
      expect(events.map((e) => e.type)).toEqual([
        'OrderReceived',
        'OrderRenderingStarted',
        'PrintFileGenerated',
        'PrintFilePreflighted',
        'OrderReady',
      ]);
      await settled(t);
      expectOnlyPrintFiles(await t.app.storage.list(label.labelId), label.labelId, order);
    } finally {
      await worker.stop();
      await renders.close();
    }
  }, 120_000);
});

describe('a flaky barcode activity', () => {
  let t: TestApp;
  let calls = 0;
  beforeAll(async () => {
    t = await startTestApp(
      {},
      {
        wrapActivities: (a) => ({
          ...a,
          async regenerateBarcode(...args: Parameters<typeof a.regenerateBarcode>) {
            calls++;
            if (calls <= 2) throw new Error(`barcode service unavailable (call ${calls})`);
            return a.regenerateBarcode(...args);
          },
        }),
      },
    );
  });
  afterAll(async () => t?.stop());

  it('is carried through by the retry policy, and the workflow history shows the attempts', async () => {
    const { call, label, shop, projects } = await setup(t);
    const orderId = `FLAKY-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.apiKey,
      body: { orderId, items: [{ itemId: 'l1', projectId: projects[0], quantity: 1 }] },
    });
    const itemId = r.body.items[0].orderItemId;
    await orderReady(call, label.adminApiKey, orderId, 60_000);
    const u = await call('PUT', `/api/orderitem/${itemId}/barcode`, {
      key: label.adminApiKey,
      body: { format: 'code128', value: 'RETRY-ME' },
    });
    expect(u.status).toBe(200);
    expect(await workflowResult(t, u.body.workflowId)).toMatchObject({ outcome: 'ready' });
    const handle = t.app.temporal!.client.workflow.getHandle(u.body.workflowId);
    expect(calls).toBe(3);
    const history = await handle.fetchHistory();
    const started = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes);
    // the first activity (regenerateBarcode) started on its third attempt, after two failures
    expect(started[0]!.activityTaskStartedEventAttributes!.attempt).toBe(3);
    expect(started[0]!.activityTaskStartedEventAttributes!.lastFailure?.message).toContain(
      'barcode service unavailable (call 2)',
    );
    await settled(t);
    const events = (
      await call('GET', `/api/orders/${orderId}/history`, { key: label.adminApiKey })
    ).body.map((e: { type: string }) => e.type);
    expect(events.filter((e: string) => e === 'BarcodeRegenerated')).toHaveLength(1);
    expect(events.filter((e: string) => e === 'PrintFileGenerated')).toHaveLength(2);
  }, 60_000);
});

describe('a render process killed while it renders', () => {
  let t: TestApp;
  beforeAll(async () => {
    // the render processes are there, warm, before the sale: the test kills those
    // the costly SVG is checked at project save like any image: on a loaded machine
    // (a hunt's busy core, two other files) it passed the 30-s check limit once
    t = await startTestApp({ RENDER_WARM_UP: 'on', IMAGE_CHECK_TIMEOUT_MS: '180000' });
  });
  afterAll(async () => t?.stop());

  it('fails that attempt only: the activity is retried in a new process, the item rendered once', async () => {
    const call = client(t.url);
    const label = await newLabel(call, t, 'Render kill');
    const shop = await newIntegration(call, t, label.adminApiKey, false);
    await importCatalog(call, t, 'supplier-a', [
      config('BIG-300', {
        printAreas: [{ code: 'FRONT', name: 'Front', widthMm: 300, heightMm: 300 }],
      }),
    ]);
    const { token } = await editorUser(t, label.labelId, `u-${randomUUID()}`);
    // seconds of drawing: long enough to be killed in the middle of it
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">${'<rect width="1000" height="1000" fill="#c00" fill-opacity="0.5"/>'.repeat(600)}</svg>`;
    const p = await call('POST', '/editor/projects', {
      headers: { authorization: `Bearer ${token}` },
      body: {
        name: 'slow',
        sku: 'BIG-300',
        supplier: 'supplier-a',
        design: {
          areas: [
            {
              printArea: 'FRONT',
              layers: [
                {
                  type: 'image',
                  src: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
                  x: 0,
                  y: 0,
                  width: 300,
                  height: 300,
                  rotation: 0,
                },
              ],
            },
          ],
        },
      },
    });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    const orderId = `KILL-${randomUUID().slice(0, 8)}`;
    const r = await call('POST', '/webhook/notifyorder', {
      key: shop.apiKey,
      body: { orderId, items: [{ itemId: 'l1', projectId: p.body.id, quantity: 1 }] },
    });
    expect(r.status).toBe(200);
    // rendering: the order says so, and a second later the processes are killed mid-draw
    for (let i = 0; i < 100; i++) {
      const o = await call('GET', `/api/orders/${orderId}`, { key: label.adminApiKey });
      if (o.body?.status === 'rendering') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    await new Promise((res) => setTimeout(res, 1000));
    // the render processes of now (an idle one ends after a minute; the sale started them)
    const killed = new Set(renderProcesses());
    expect(killed.size).toBeGreaterThan(0);
    for (const pid of killed) process.kill(pid, 'SIGKILL');
    const order = await orderReady(call, label.adminApiKey, orderId, 120_000);
    expect(order.status).toBe('ready');
    // new processes took over
    expect(renderProcesses().some((pid) => !killed.has(pid))).toBe(true);
    await settled(t);
    const generated = await t.app.db.pool.query(
      "SELECT count(*)::int AS n FROM es_events WHERE type = 'PrintFileGenerated' AND stream_id LIKE $1",
      [`Order-${label.labelId}-%`],
    );
    expect(generated.rows[0].n).toBe(1);
    // the workflow's history: the render (a local activity) settled the item on its
    // second attempt, the first having failed with the killed process
    const handle = t.app.temporal!.client.workflow.getHandle(`order:${label.labelId}:${orderId}`);
    const history = await handle.fetchHistory();
    const renders = (history.events ?? []).flatMap((e) => {
      const data = e.markerRecordedEventAttributes?.details?.data?.payloads?.[0]?.data;
      const marker = data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined;
      return marker?.activity_type === 'printOrderItem' ? [marker] : [];
    });
    expect(renders).toMatchObject([{ attempt: 2 }]);
  }, 300_000);
});
