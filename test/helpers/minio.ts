import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '../../src/db/database.ts';
import type { S3Location } from '../../src/storage/s3.ts';
import { cachedTool } from './cached-tool.ts';

export interface Minio {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** a new empty bucket; the location of `prefix` in it */
  bucket(prefix?: string): Promise<S3Location>;
  /** kill -9, keeping its data and port for `start` */
  kill(): Promise<void>;
  /** starts it again on the same data and port */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The MinIO binary: MINIO_PATH, or the one scripts/install-minio.sh cached; else undefined. */
export const minioBinary = () => cachedTool('install-minio.sh', 'MINIO_PATH', 'MINIO_NO_BUILD');

/** A MinIO server in a temporary folder on a free loopback port, with its own keys. */
export async function startMinio(binary: string): Promise<Minio> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'minio-'));
  const port = await freePort();
  const consolePort = await freePort();
  const accessKeyId = `test${randomBytes(6).toString('hex')}`;
  const secretAccessKey = randomBytes(24).toString('base64url');
  const endpoint = `http://127.0.0.1:${port}`;
  const launch = async (): Promise<ChildProcess> => {
    const proc = spawn(
      binary,
      [
        'server',
        dir,
        '--address',
        `127.0.0.1:${port}`,
        '--console-address',
        `127.0.0.1:${consolePort}`,
        '--quiet',
      ],
      {
        env: { ...process.env, MINIO_ROOT_USER: accessKeyId, MINIO_ROOT_PASSWORD: secretAccessKey },
        stdio: 'ignore',
      },
    );
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await fetch(`${endpoint}/minio/health/live`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return proc;
      if (Date.now() > deadline || proc.exitCode !== null) {
        proc.kill('SIGKILL');
        throw new Error('MinIO did not start');
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const exit = async (proc: ChildProcess, signal: NodeJS.Signals) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill(signal);
    await exited;
  };
  let proc = await launch();
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId, secretAccessKey },
  });
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    async bucket(prefix = '') {
      const bucket = `t-${randomBytes(6).toString('hex')}`;
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return {
        bucket,
        prefix,
        endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId, secretAccessKey },
      };
    },
    async kill() {
      await exit(proc, 'SIGKILL');
    },
    async start() {
      proc = await launch();
    },
    async stop() {
      await exit(proc, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
