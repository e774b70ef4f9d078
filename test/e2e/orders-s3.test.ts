import { afterAll, describe, it } from 'vitest';
import { type Minio, minioBinary, startMinio } from '../helpers/minio.ts';
import { saleNotificationSuite } from './orders.suite.ts';

/** The same end-to-end order suite with print files and images in MinIO (STORAGE_URL). */
const binary = minioBinary();
if (!binary) {
  describe.skip('sale notifications with S3 storage (no MinIO binary: run scripts/install-minio.sh or set MINIO_PATH)', () => {
    it('needs MinIO', () => {});
  });
} else {
  let minio: Minio | undefined;
  afterAll(async () => minio?.stop());
  saleNotificationSuite('print files and images in S3 (MinIO)', async () => {
    minio = await startMinio(binary);
    const b = await minio.bucket();
    return {
      STORAGE_URL: `s3://${b.bucket}/editor?endpoint=${encodeURIComponent(minio.endpoint)}&pathStyle=true`,
      S3_ACCESS_KEY_ID: minio.accessKeyId,
      S3_SECRET_ACCESS_KEY: minio.secretAccessKey,
    };
  });
}
