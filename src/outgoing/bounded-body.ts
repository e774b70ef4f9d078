/**
 * What an outside server answers is read up to a small limit, then the connection is
 * closed: a webhook receiver or a partner callback that answers with an endless body
 * must not fill this process's memory (measured before this: 2.75 GB read, the process
 * 757 MB -> 3.27 GB). Every outgoing call reads its answer through here.
 */
export const OUTSIDE_ANSWER_LIMIT = 64 * 1024;

export interface BoundedBody {
  /** the answer's first bytes as UTF-8 (at most `limit` bytes) */
  text: string;
  /** the answer went on past the limit (the rest was not read) */
  truncated: boolean;
  /**
   * bytes taken from the body's stream, the chunk that crossed the limit included: what
   * the answer cost this process, whatever the server went on sending
   */
  bytesRead: number;
}

/**
 * Reads at most `limit` bytes of a response's body; past that it cancels the body, which closes the
 * connection.
 */
export async function readBounded(
  res: Response,
  limit: number = OUTSIDE_ANSWER_LIMIT,
): Promise<BoundedBody> {
  const reader = res.body?.getReader();
  if (!reader) return { text: '', truncated: false, bytesRead: 0 };
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = () => Buffer.concat(chunks).toString('utf8');
      if (done) return { text: text(), truncated: false, bytesRead: size };
      const room = limit - size;
      if (value.length > room) {
        if (room > 0) chunks.push(value.subarray(0, room));
        await reader.cancel().catch(() => {});
        return { text: text(), truncated: true, bytesRead: size + value.length };
      }
      chunks.push(value);
      size += value.length;
    }
  } finally {
    reader.releaseLock();
  }
}
