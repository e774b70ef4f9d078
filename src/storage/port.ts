/** Where print files live. Keys are content-addressed paths: writing the same file twice is a no-op. */
export interface FileStorage {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  /** every stored key under a prefix (for audits and tests) */
  list(prefix: string): Promise<string[]>;
}
