import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3Location, S3Storage } from '../../src/storage/s3.ts';
import { cuttingProxy } from '../helpers/cutting-proxy.ts';
import { type Minio, minioBinary, startMinio } from '../helpers/minio.ts';
import { storageContract } from './storage.contract.ts';

/**
 * The S3 adapter against a real S3 server: MinIO, started here from the binary
 * scripts/install-minio.sh builds (`.ci/run` builds it); without one the suite is
 * reported as skipped, with the reason in its name.
 */
const binary = minioBinary();
if (!binary) {
  describe.skip('file storage contract: S3 (no MinIO binary: run scripts/install-minio.sh or set MINIO_PATH)', () => {
    it('needs MinIO', () => {});
  });
} else {
  let minio: Minio;
  beforeAll(async () => {
    minio = await startMinio(binary);
  }, 90_000);
  afterAll(async () => minio?.stop());
  const locations = new Map<string, S3Location>();
  const location = async (prefix: string) => {
    if (!locations.has(prefix)) locations.set(prefix, await minio.bucket(`editor/${prefix}`));
    return locations.get(prefix)!;
  };
  storageContract(
    'S3 (MinIO)',
    async (prefix) => S3Storage.open(await location(prefix), 'print-files'),
    // the connection to the server is cut after 1 MiB of the upload, every try
    async (prefix, key, bytes) => {
      const where = await location(prefix);
      const target = new URL(where.endpoint!);
      const proxy = await cuttingProxy(
        { host: target.hostname, port: Number(target.port) },
        1 << 20,
      );
      try {
        const cut = S3Storage.open({ ...where, endpoint: proxy.url }, 'print-files');
        await expect(cut.put(key, bytes)).rejects.toThrow();
        expect(proxy.cuts()).toBeGreaterThan(0);
      } finally {
        await proxy.close();
      }
    },
  );
}
