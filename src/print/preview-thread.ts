import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { renderPreviews } from './preview.ts';

/**
 * The preview thread: draws previews at the lowest CPU priority (on Linux a thread's nice
 * value is its own), so rendering print files never waits for a preview.
 */
try {
  os.setPriority(19);
} catch {
  // not allowed here: previews then run at normal priority
}

parentPort?.on('message', async (m: { id: number; pdf: Uint8Array }) => {
  try {
    const pages = await renderPreviews(m.pdf);
    parentPort?.postMessage({ id: m.id, pages });
  } catch (err) {
    parentPort?.postMessage({ id: m.id, error: (err as Error).message });
  }
});
