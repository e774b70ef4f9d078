import { afterAll, beforeAll, describe, it } from 'vitest';
import { S3Storage } from '../../src/storage/s3.ts';
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
  storageContract('S3 (MinIO)', async (prefix) =>
    S3Storage.open(await minio.bucket(`editor/${prefix}`), 'print-files'),
  );
}
