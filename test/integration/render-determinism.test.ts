import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { renderAll, renderCases } from '../helpers/render-cases.ts';

const run = promisify(execFile);

async function inChild(arg: string): Promise<Record<string, string>> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/render-cases-child.ts', arg],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout);
}

/**
 * Replays are byte for byte: every feature of the renderers (see render-cases.ts) gives
 * the same bytes in separate processes, whichever case a process renders first (what a
 * render finds cached from an earlier one must not matter: the ink order of issue 21
 * depended on it), and when every render runs at once in one process, where asynchronous
 * work finishes in another order.
 */
describe('rendering is deterministic', () => {
  it('gives the same bytes in processes of their own, one at a time and all at once', async () => {
    const n = (await renderCases()).length;
    expect(n).toBeGreaterThanOrEqual(10);
    const results: Record<string, string>[] = [];
    // two processes at a time: one per core
    for (let i = 0; i < n; i += 2)
      results.push(
        ...(await Promise.all([i, i + 1].filter((k) => k < n).map((k) => inChild(String(k))))),
      );
    results.push(await inChild('concurrent'));
    const [first, ...others] = results;
    for (const hash of Object.values(first!)) expect(hash).toMatch(/^[0-9a-f]{64}$/);
    for (const other of others) expect(other).toEqual(first);
    // and in this process too, all at once
    expect(await renderAll({ concurrent: true })).toEqual(first);
  }, 300_000);
});
