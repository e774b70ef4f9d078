import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * The TypeScript source (tests, tsx): a thread that registers tsx's loader first, then
 * loads the thread's module (a thread does not inherit the loader of its parent).
 */
function withTsx(url: URL): URL {
  const api = pathToFileURL(
    path.join(
      path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')),
      'dist/esm/api/index.mjs',
    ),
  ).href;
  const code = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(url.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

/**
 * Draws previews in a thread of their own at the lowest CPU priority, one print file at a
 * time: a busy worker renders print files first and previews when it has time. The
 * thread starts at the first preview and ends with `close`.
 */
export class PreviewRenderer {
  private worker: Worker | undefined;
  private next = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (pages: Buffer[]) => void; reject: (err: Error) => void }
  >();

  render(pdf: Uint8Array): Promise<Buffer[]> {
    const worker = this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, pdf });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const url = new URL(
      import.meta.url.endsWith('.ts') ? './preview-thread.ts' : './preview-thread.js',
      import.meta.url,
    );
    const worker = new Worker(url.pathname.endsWith('.ts') ? withTsx(url) : url);
    worker.unref();
    worker.on('message', (m: { id: number; pages?: Uint8Array[]; error?: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(m.error));
      else w?.resolve((m.pages ?? []).map((p) => Buffer.from(p)));
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the preview thread ended (${code})`)));
    this.worker = worker;
    return worker;
  }
}
