import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { FIELD_NAME } from '../domain/project/design.ts';

export const MAX_DATASET_ROWS = 100_000;
export const MAX_DATASET_BYTES = 50 * 1024 * 1024;
export const MAX_DATASET_FIELDS = 100;
export const MAX_VALUE_LENGTH = 4000;
export type DatasetFormat = 'csv' | 'ndjson';

/** A data set a client sent cannot be taken: the message names the row and what is wrong. */
export class DatasetProblem extends Error {
  override name = 'DatasetProblem';
}

export interface ParsedDataset {
  fields: string[];
  rows: number;
  /** of the bytes as sent */
  sha256: string;
  bytes: number;
}

/**
 * Bytes to text as they pass, refusing what is not UTF-8 (a Latin-1 file would print
 * "MÃ¼ller") and NUL characters; the bytes are counted and hashed on the way.
 */
class Utf8Text extends Transform {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  readonly hash = createHash('sha256');
  bytes = 0;
  constructor() {
    super({ readableObjectMode: false, decodeStrings: true });
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
    this.bytes += chunk.length;
    if (this.bytes > MAX_DATASET_BYTES)
      return done(new DatasetProblem('a data set is at most 50 MB'));
    this.hash.update(chunk);
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      return done(new DatasetProblem('the data set is not UTF-8 text'));
    }
    if (text.includes('\u0000'))
      return done(new DatasetProblem('the data set holds a NUL character'));
    done(null, text);
  }
  override _flush(done: TransformCallback) {
    try {
      done(null, this.decoder.decode());
    } catch {
      done(new DatasetProblem('the data set is not UTF-8 text (it ends inside a character)'));
    }
  }
}

function checkFields(fields: string[]): void {
  if (fields.length === 0) throw new DatasetProblem('the data set names no fields');
  if (fields.length > MAX_DATASET_FIELDS)
    throw new DatasetProblem(`a data set has at most ${MAX_DATASET_FIELDS} fields`);
  const seen = new Set<string>();
  for (const f of fields) {
    if (!FIELD_NAME.test(f))
      throw new DatasetProblem(
        `the field name ${JSON.stringify(f.slice(0, 70))} is not a name a design can use (a letter or _, then letters, digits, _ . -; at most 64)`,
      );
    if (seen.has(f)) throw new DatasetProblem(`the field ${f} appears twice`);
    seen.add(f);
  }
}

function checkValue(row: number, field: string, v: string): string {
  if (v.length > MAX_VALUE_LENGTH)
    throw new DatasetProblem(
      `row ${row}, field ${field}: at most ${MAX_VALUE_LENGTH} characters a value`,
    );
  return v;
}

/** Rows one at a time, as the parser gives them: values in the fields' order. */
class Rows extends Transform {
  fields: string[] | undefined;
  rows = 0;
  constructor(
    private readonly format: DatasetFormat,
    private readonly onRow: (values: string[]) => void,
  ) {
    super({ objectMode: true });
  }
  override _transform(record: unknown, _enc: BufferEncoding, done: TransformCallback) {
    try {
      if (this.format === 'csv') this.csv(record as string[]);
      else this.ndjson(record as string);
      done();
    } catch (err) {
      done(err as Error);
    }
  }
  private accept(values: string[]) {
    if (++this.rows > MAX_DATASET_ROWS)
      throw new DatasetProblem(`a data set has at most ${MAX_DATASET_ROWS} rows`);
    this.onRow(values);
  }
  private csv(record: string[]) {
    if (!this.fields) {
      checkFields(record.map((f) => f.trim()));
      this.fields = record.map((f) => f.trim());
      return;
    }
    const fields = this.fields;
    this.accept(record.map((v, i) => checkValue(this.rows + 1, fields[i]!, v)));
  }
  private ndjson(line: string) {
    if (line.trim() === '') return;
    const row = this.rows + 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new DatasetProblem(`row ${row}: not a JSON object`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new DatasetProblem(`row ${row}: not a JSON object`);
    if (!this.fields) this.fields = [];
    const fields = this.fields;
    const values: string[] = new Array(fields.length).fill('');
    for (const [k, v] of Object.entries(value)) {
      let i = fields.indexOf(k);
      if (i < 0) {
        checkFields([...fields, k]);
        fields.push(k);
        i = fields.length - 1;
      }
      if (v !== null && typeof v === 'object')
        throw new DatasetProblem(`row ${row}, field ${k}: a text, number or true/false`);
      values[i] = checkValue(row, k, v === null ? '' : String(v));
    }
    this.accept(values);
  }
}

/** NDJSON's lines, one string each. */
class Lines extends Transform {
  private rest = '';
  constructor() {
    super({ readableObjectMode: true, decodeStrings: false });
  }
  override _transform(chunk: string | Buffer, _enc: BufferEncoding, done: TransformCallback) {
    const text = this.rest + String(chunk);
    const lines = text.split('\n');
    this.rest = lines.pop()!;
    for (const line of lines) this.push(line.replace(/\r$/, ''));
    done();
  }
  override _flush(done: TransformCallback) {
    if (this.rest) this.push(this.rest.replace(/\r$/, ''));
    done();
  }
}

const CSV_ERRORS: Record<string, string> = {
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'a row has another number of values than the header',
  CSV_QUOTE_NOT_CLOSED: 'a quoted value is not closed',
  CSV_INVALID_CLOSING_QUOTE: 'a quote inside a quoted value is not doubled',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'text follows a closing quote',
  CSV_MAX_RECORD_SIZE: 'a row is too long',
};

/**
 * Parses a data set as a stream, `onRow` called for each row (its values in the
 * fields' order): CSV as RFC 4180 with a header row (csv-parse), or NDJSON, one object a
 * line. At most 100,000 rows and 50 MB; what is not UTF-8, holds NUL, or breaks the format
 * is a DatasetProblem naming the line.
 */
export async function parseDataset(
  input: NodeJS.ReadableStream,
  format: DatasetFormat,
  onRow: (values: string[]) => void,
): Promise<ParsedDataset> {
  const text = new Utf8Text();
  const rows = new Rows(format, onRow);
  const parser =
    format === 'csv'
      ? parse({ bom: true, skip_empty_lines: true, max_record_size: 1024 * 1024 })
      : new Lines();
  try {
    await pipeline(input, text, parser, rows);
  } catch (err) {
    if (err instanceof DatasetProblem) throw err;
    const e = err as { code?: string; lines?: number };
    const known = e.code ? CSV_ERRORS[e.code] : undefined;
    if (known) throw new DatasetProblem(`line ${e.lines ?? '?'}: ${known}`);
    if (e.code?.startsWith('CSV_')) throw new DatasetProblem(`the CSV cannot be read (${e.code})`);
    throw err;
  }
  if (!rows.fields) throw new DatasetProblem('the data set is empty');
  if (rows.rows === 0) throw new DatasetProblem('the data set has no rows');
  return {
    fields: rows.fields,
    rows: rows.rows,
    sha256: text.hash.digest('hex'),
    bytes: text.bytes,
  };
}
