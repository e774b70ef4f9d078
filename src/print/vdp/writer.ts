import { createHash } from 'node:crypto';
import type { PDFObject } from 'pdf-lib';

/**
 * A PDF written front to back as its objects come, never whole in memory: each object's
 * offset is noted, and the cross-reference table is written at the end (one subsection
 * per run of numbers, so a file of a few records keeps their numbers from the whole
 * file). What it writes is hashed as it goes.
 */
export class StreamingPdf {
  private readonly offsets = new Map<number, number>();
  private position = 0;
  private readonly hash = createHash('sha256');

  constructor(private readonly sink: (bytes: Buffer) => void) {
    // the header, and a comment of four bytes over 127: the file holds binary data
    this.raw(Buffer.from('%PDF-1.6\n%\xe2\xe3\xcf\xd3\n', 'latin1'));
  }

  get bytes(): number {
    return this.position;
  }

  /** Where object `n` begins in the file (written already). */
  offsetOf(n: number): number | undefined {
    return this.offsets.get(n);
  }

  private raw(bytes: Buffer) {
    this.hash.update(bytes);
    this.sink(bytes);
    this.position += bytes.length;
  }

  /** Object `n` from its body as PDF text (a dictionary, an array, a number). */
  object(n: number, body: string): void {
    this.objectBytes(n, Buffer.from(body, 'latin1'));
  }

  /** Object `n`: a stream of `data` with its dictionary's entries (Length is added). */
  stream(n: number, dict: string, data: Buffer): void {
    this.objectBytes(
      n,
      Buffer.concat([
        Buffer.from(`<<${dict} /Length ${data.length}>>\nstream\n`, 'latin1'),
        data,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
  }

  /** Object `n` as pdf-lib serialises it (its streams' Length is set by pdf-lib). */
  pdfLib(n: number, object: PDFObject): void {
    const bytes = Buffer.alloc(object.sizeInBytes());
    object.copyBytesInto(bytes, 0);
    this.objectBytes(n, bytes);
  }

  private objectBytes(n: number, body: Buffer) {
    if (this.offsets.has(n)) throw new Error(`object ${n} written twice`);
    this.offsets.set(n, this.position);
    this.raw(Buffer.concat([Buffer.from(`${n} 0 obj\n`), body, Buffer.from('\nendobj\n')]));
  }

  /** The cross-reference table and trailer; answers the file's sha256 (hex). */
  finish(trailer: { root: number; info: number; id: [string, string] }): {
    sha256: string;
    bytes: number;
  } {
    const start = this.position;
    const numbers = [...this.offsets.keys()].sort((a, b) => a - b);
    const size = (numbers.at(-1) ?? 0) + 1;
    const parts: string[] = ['xref\n0 1\n0000000000 65535 f\r\n'];
    for (let i = 0; i < numbers.length; ) {
      let j = i;
      while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++;
      parts.push(`${numbers[i]} ${j - i + 1}\n`);
      for (let k = i; k <= j; k++)
        parts.push(`${String(this.offsets.get(numbers[k]!)).padStart(10, '0')} 00000 n\r\n`);
      i = j + 1;
    }
    parts.push(
      `trailer\n<</Size ${size} /Root ${trailer.root} 0 R /Info ${trailer.info} 0 R /ID [<${trailer.id[0]}> <${trailer.id[1]}>]>>\nstartxref\n${start}\n%%EOF\n`,
    );
    // in pieces: a table of 300,000 objects is 6 MB of text
    for (let i = 0; i < parts.length; i += 4096)
      this.raw(Buffer.from(parts.slice(i, i + 4096).join(''), 'latin1'));
    return { sha256: this.hash.digest('hex'), bytes: this.position };
  }
}

/** A text string for a PDF: literal when printable ASCII, else UTF-16BE hex with its mark. */
export function pdfText(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  let hex = 'FEFF';
  for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).padStart(4, '0');
  return `<${hex}>`;
}

/** A number as PDF writes it: at most three decimals, no exponent. */
export const num = (v: number) => String(Math.round(v * 1000) / 1000);
