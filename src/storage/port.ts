import type { Readable } from 'node:stream';

/** A stored file opened for reading: its bytes as a stream and how many there are. */
export interface OpenedFile {
  body: Readable;
  size: number;
}

/** What a short-lived download link makes the client's download say of the file. */
export interface SignedUrlOptions {
  expiresInSeconds: number;
  contentType: string;
  /** the name a browser saves it under */
  filename: string;
}

/**
 * Where print files live. Keys are content-addressed paths: writing the same file twice is a no-op.
 */
export interface FileStorage {
  put(key: string, bytes: Uint8Array): Promise<void>;
  /**
   * A file of this machine put under `key` as it is (a variable-data print file of
   * 100,000 records): read as a stream, never whole in memory. `sha256` (hex) is its
   * content's hash, which the caller computed while writing it.
   */
  putFile(key: string, file: string, sha256: string): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  /** the file as a stream, for downloads: nothing of it is held in memory */
  open(key: string): Promise<OpenedFile | undefined>;
  /**
   * A URL anyone holding it can download the file from until it expires, when the
   * store can make one (object storage); undefined when it cannot (a folder).
   */
  signedUrl?(key: string, options: SignedUrlOptions): Promise<string>;
  /** every stored key under a prefix (for audits, clean-ups and tests) */
  list(prefix: string): Promise<string[]>;
  /**
   * Deletes a file unless it was put (written, or put again) after `since`; true when
   * it was deleted. A put racing the removal either keeps its file or writes it anew.
   */
  remove(key: string, since: Date): Promise<boolean>;
  /** resolves when files can be written and read now; rejects otherwise (readiness) */
  ping(): Promise<void>;
}
