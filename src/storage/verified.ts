import { createHash } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';

/**
 * The bytes of `body` passed on as they come, hashed on the way, except the last chunk:
 * it is held back until the end, and when the bytes have another sha256 than `sha256`
 * the stream fails instead. The download is then cut short (the client gets fewer bytes
 * than the length it was told) rather than complete with a file the order's history
 * does not name.
 */
export function verifiedStream(body: Readable, sha256: string): Readable {
  const hash = createHash('sha256');
  let held: Buffer | undefined;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      const out = held;
      held = chunk;
      done(null, out);
    },
    flush(done) {
      const got = hash.digest('hex');
      if (got !== sha256) return done(new StoredFileChanged(sha256, got));
      done(null, held);
    },
  });
  body.on('error', (err) => check.destroy(err));
  return body.pipe(check);
}

export class StoredFileChanged extends Error {
  override name = 'StoredFileChanged';
  constructor(expected: string, got: string) {
    super(`stored file is not the one recorded: sha256 ${got}, expected ${expected}`);
  }
}
