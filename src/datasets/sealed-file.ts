import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * A data set as it is kept: its rows are personal data, so they are sealed with the data
 * set's own key (AES-256-GCM), which erasing it destroys. Rows go in chunks of
 * CHUNK_ROWS, each compressed then sealed on its own (the chunk's number and the data
 * set's id bound in as associated data, so no chunk can be moved or swapped), so that one
 * record's row is read by opening one chunk, and a render reads the rows as a stream.
 *
 * Layout: chunk 1 … chunk n, then the index (JSON: format version, fields, row count,
 * each chunk's offset and length; nothing personal), then the index's length as 8 ASCII
 * hex digits.
 */
export const CHUNK_ROWS = 500;
const TRAILER = 8;

interface Index {
  v: 1;
  fields: string[];
  rows: number;
  chunks: [offset: number, length: number][];
}

function seal(key: Buffer, aad: string, bytes: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const data = Buffer.concat([cipher.update(bytes), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]);
}

function open(key: Buffer, aad: string, sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
}

/** Rows in, sealed chunks out (to `write`, in order); `finish` writes the index. */
export class SealedDatasetWriter {
  private pending: string[][] = [];
  private readonly chunks: [number, number][] = [];
  private offset = 0;
  private rows = 0;
  constructor(
    private readonly key: Buffer,
    private readonly datasetId: string,
    private readonly write: (bytes: Buffer) => void,
  ) {}

  add(values: string[]): void {
    this.pending.push(values);
    this.rows++;
    if (this.pending.length === CHUNK_ROWS) this.flush();
  }

  finish(fields: string[]): void {
    if (this.pending.length > 0) this.flush();
    const index: Index = { v: 1, fields, rows: this.rows, chunks: this.chunks };
    const json = Buffer.from(JSON.stringify(index));
    this.write(json);
    this.write(Buffer.from(json.length.toString(16).padStart(TRAILER, '0')));
  }

  private flush() {
    const n = this.chunks.length;
    const sealed = seal(
      this.key,
      `${this.datasetId}:${n}`,
      deflateRawSync(JSON.stringify(this.pending)),
    );
    this.write(sealed);
    this.chunks.push([this.offset, sealed.length]);
    this.offset += sealed.length;
    this.pending = [];
  }
}

/** A sealed data set opened with its key: its fields, and its rows by number or in order. */
export class SealedDataset {
  readonly fields: string[];
  readonly rows: number;
  private readonly index: Index;
  private cached: { n: number; rows: string[][] } | undefined;

  constructor(
    private readonly file: Buffer,
    private readonly key: Buffer,
    private readonly datasetId: string,
  ) {
    const length = Number.parseInt(file.subarray(file.length - TRAILER).toString('latin1'), 16);
    if (!Number.isFinite(length) || length <= 0 || length > file.length - TRAILER)
      throw new Error('not a sealed data set');
    this.index = JSON.parse(
      file.subarray(file.length - TRAILER - length, file.length - TRAILER).toString('utf8'),
    ) as Index;
    if (this.index.v !== 1) throw new Error(`a sealed data set of version ${this.index.v}`);
    this.fields = this.index.fields;
    this.rows = this.index.rows;
  }

  private chunk(n: number): string[][] {
    if (this.cached?.n === n) return this.cached.rows;
    const [offset, length] = this.index.chunks[n]!;
    const plain = open(
      this.key,
      `${this.datasetId}:${n}`,
      this.file.subarray(offset, offset + length),
    );
    const rows = JSON.parse(inflateRawSync(plain).toString('utf8')) as string[][];
    this.cached = { n, rows };
    return rows;
  }

  /** Row n (1-based): its values in the fields' order (a short row ends in empty values). */
  row(n: number): string[] {
    if (!Number.isInteger(n) || n < 1 || n > this.rows)
      throw new RangeError(`no row ${n} (1-${this.rows})`);
    return this.chunk(Math.floor((n - 1) / CHUNK_ROWS))[(n - 1) % CHUNK_ROWS]!;
  }

  /** Every row in order, one chunk open at a time. */
  *each(): Generator<[number, string[]]> {
    for (let c = 0; c < this.index.chunks.length; c++) {
      const rows = this.chunk(c);
      for (const [i, values] of rows.entries()) yield [c * CHUNK_ROWS + i + 1, values];
    }
  }

  /** A row as a lookup by field name (a field the row lacks is undefined). */
  lookup(values: string[]): (field: string) => string | undefined {
    return (field) => {
      const i = this.fields.indexOf(field);
      return i < 0 ? undefined : values[i];
    };
  }
}
