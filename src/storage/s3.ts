import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { FileStorage, OpenedFile, SignedUrlOptions } from './port.ts';

/** Where the objects live: from STORAGE_URL and the S3_* settings. */
export interface S3Location {
  bucket: string;
  /** every key is put under it (`print-files/`, `images/` are added per store) */
  prefix: string;
  endpoint?: string | undefined;
  /**
   * the endpoint download links point at, when clients reach the storage under another
   * address than the service does (a private network name, a CDN); else `endpoint`
   */
  publicEndpoint?: string | undefined;
  region: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/**
 * `s3://bucket/prefix?endpoint=http://127.0.0.1:9000&region=us-east-1&pathStyle=true&publicEndpoint=https://files.example.com`;
 * the keys come from S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY, else the AWS SDK's own
 * chain (AWS_* variables, profiles, instance roles).
 */
export function parseStorageUrl(
  raw: string,
  env: Record<string, string | undefined> = {},
): S3Location {
  const url = new URL(raw);
  if (url.protocol !== 's3:') throw new Error('STORAGE_URL: only s3:// URLs');
  if (!url.hostname) throw new Error('STORAGE_URL: no bucket');
  const prefix = decodeURIComponent(url.pathname.replace(/^\/+/, '')).replace(/\/?$/, '/');
  const q = url.searchParams;
  const key = env.S3_ACCESS_KEY_ID;
  const secret = env.S3_SECRET_ACCESS_KEY;
  return {
    bucket: url.hostname,
    prefix: prefix === '/' ? '' : prefix,
    endpoint: q.get('endpoint') ?? undefined,
    publicEndpoint: q.get('publicEndpoint') ?? undefined,
    region: q.get('region') ?? env.AWS_REGION ?? 'us-east-1',
    forcePathStyle: (q.get('pathStyle') ?? (q.get('endpoint') ? 'true' : 'false')) === 'true',
    credentials: key && secret ? { accessKeyId: key, secretAccessKey: secret } : undefined,
  };
}

const missing = (err: unknown) =>
  err instanceof NoSuchKey ||
  err instanceof NotFound ||
  (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

/**
 * Files in an S3 bucket (AWS S3, MinIO, R2, Ceph...). An object appears whole or not at
 * all (S3 puts are atomic), so a put that fails half-way leaves nothing readable. Keys
 * are content-addressed: putting the same key again rewrites the same bytes and marks
 * the object as put now, which is what the clean-ups read.
 */
export class S3Storage implements FileStorage {
  private constructor(
    private readonly client: S3Client,
    /** signs download links for the address clients use (the host is part of the signature) */
    private readonly signer: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
  ) {}

  static open(location: S3Location, sub: string): S3Storage {
    const clientFor = (endpoint: string | undefined) =>
      new S3Client({
        region: location.region,
        forcePathStyle: location.forcePathStyle,
        ...(endpoint ? { endpoint } : {}),
        ...(location.credentials ? { credentials: location.credentials } : {}),
      });
    const client = clientFor(location.endpoint);
    const signer = location.publicEndpoint ? clientFor(location.publicEndpoint) : client;
    return new S3Storage(
      client,
      signer,
      location.bucket,
      `${location.prefix}${sub.replace(/\/?$/, '/')}`,
    );
  }

  private key(key: string): string {
    if (!key || key.startsWith('/') || key.split('/').includes('..'))
      throw new Error(`bad key ${key}`);
    return this.prefix + key;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.key(key),
        Body: bytes,
        // the server refuses a body that arrives other than it left; a download that
        // sends `x-amz-checksum-mode: ENABLED` gets it back as x-amz-checksum-sha256
        ChecksumSHA256: createHash('sha256').update(bytes).digest('base64'),
      }),
    );
  }

  async putFile(key: string, file: string, sha256: string): Promise<void> {
    const { size } = await stat(file);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.key(key),
        Body: createReadStream(file),
        ContentLength: size,
        ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
      }),
    );
  }

  async open(key: string): Promise<OpenedFile | undefined> {
    try {
      const r = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.key(key) }),
      );
      if (!(r.Body instanceof Readable) || r.ContentLength === undefined) {
        throw new Error('the object store answered without a readable body or its length');
      }
      return { body: r.Body, size: r.ContentLength };
    } catch (err) {
      if (missing(err)) return undefined;
      throw err;
    }
  }

  signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    return getSignedUrl(
      this.signer,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: this.key(key),
        ResponseContentType: options.contentType,
        ResponseContentDisposition: `inline; filename="${options.filename}"`,
      }),
      { expiresIn: options.expiresInSeconds },
    );
  }

  async ping(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      // readiness shows the code: which of gone, refused or not allowed
      if (status) throw Object.assign(new Error('the bucket cannot be used'), { code: status });
      throw err;
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    const file = await this.open(key);
    if (!file) return undefined;
    const bytes = await buffer(file.body);
    // a connection closed early ends the stream without an error
    if (bytes.length !== file.size)
      throw new Error(`read ${bytes.length} of the object's ${file.size} bytes`);
    return bytes;
  }

  /**
   * S3 has no rename to move a file aside as the filesystem adapter does: the object's
   * time is read, then it is deleted. A put of the same key between the two is lost with
   * it; the image clean-up (the only caller) spares anything put within its grace time
   * and checks references first, so that needs an image unreferenced for the whole grace
   * time being saved again within those milliseconds.
   */
  async remove(key: string, since: Date): Promise<boolean> {
    let modified: Date | undefined;
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(key) }),
      );
      modified = head.LastModified;
    } catch (err) {
      if (missing(err)) return false;
      throw err;
    }
    if (modified && modified.getTime() > since.getTime()) return false;
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
    return true;
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.prefix + prefix,
          ContinuationToken: token,
        }),
      );
      for (const o of page.Contents ?? []) if (o.Key) out.push(o.Key.slice(this.prefix.length));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }
}
