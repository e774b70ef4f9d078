import type { FileStorage } from '../../src/storage/port.ts';

/**
 * A file storage that writes a file and then never answers, when `stallsAt` says so:
 * a process can be killed between storing a file and recording it. Prints
 * "stalled <key>" when it stalls.
 */
export function stallingStorage(
  real: FileStorage,
  stallsAt: (key: string) => boolean,
): FileStorage {
  return {
    get: (key) => real.get(key),
    open: (key) => real.open(key),
    ping: () => real.ping(),
    list: (prefix) => real.list(prefix),
    remove: (key, since) => real.remove(key, since),
    putFile: (key, file, sha256) => real.putFile(key, file, sha256),
    async put(key, bytes) {
      await real.put(key, bytes);
      if (!stallsAt(key)) return;
      console.log(`stalled ${key}`);
      await new Promise(() => {}); // until the process is killed
    },
  };
}
