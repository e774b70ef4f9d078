/** Where print files live. Keys are content-addressed paths: writing the same file twice is a no-op. */
export interface FileStorage {
  put(key: string, bytes: Uint8Array): Promise<void>;
  get(key: string): Promise<Buffer | undefined>;
  /** every stored key under a prefix (for audits, clean-ups and tests) */
  list(prefix: string): Promise<string[]>;
  /**
   * Deletes a file unless it was put (written, or put again) after `since`; true when
   * it was deleted. A put racing the removal either keeps its file or writes it anew.
   */
  remove(key: string, since: Date): Promise<boolean>;
}
