import { hash } from 'node:crypto';

/*
 * What a leaf of the audit log is: an event exactly as the store holds it, as seven
 * fields in this order: stream, revision (decimal), id, type, schema version (decimal),
 * data and metadata (the JSON text the store keeps: the service writes them with
 * JSON.stringify and PostgreSQL's json column keeps that text byte for byte). Each field
 * is its UTF-8 bytes after their length as 4 bytes, big-endian. Nothing in it is sorted
 * or re-encoded, so a leaf costs little to make and anyone can make it again; any change
 * to any field changes it. Personal data in an event is ciphertext, so the leaf is too:
 * erasing a key leaves every proof as it was.
 */

export interface StoredEventFacts {
  stream: string;
  revision: string;
  id: string;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
}

/** A leaf's seven fields as text, in their order (data and metadata: their JSON text). */
export const leafFields = (e: StoredEventFacts): string[] => [
  e.stream,
  e.revision,
  e.id,
  e.type,
  String(e.schemaVersion),
  JSON.stringify(e.data),
  JSON.stringify(e.metadata),
];

/** The bytes of an event's leaf (hashed with RFC 9162's 0x00 prefix: merkle.ts leafHash). */
export const leafBytes = (e: StoredEventFacts): Buffer => encoded(leafFields(e));

/**
 * A leaf's hash from its fields (RFC 9162: SHA-256 of 0x00 and the leaf's bytes): the
 * same as merkle.ts leafHash(leafBytes(e)), encoded into one buffer kept for the next
 * leaf and hashed with one call, for the tree's pages of thousands of leaves.
 */
export function leafHashOfFields(fields: readonly string[]): Buffer {
  // a UTF-16 unit is at most 3 bytes of UTF-8
  let most = 1;
  for (const f of fields) most += 4 + 3 * f.length;
  if (scratch.length < most) scratch = Buffer.allocUnsafe(Math.max(most, 2 * scratch.length));
  scratch[0] = 0;
  let at = 1;
  for (const f of fields) {
    // the text first, then its length before it: no pass over it to measure it
    const n = scratch.write(f, at + 4, 'utf8');
    scratch.writeUInt32BE(n, at);
    at += 4 + n;
  }
  return hash('sha256', scratch.subarray(0, at), 'buffer');
}
let scratch = Buffer.allocUnsafe(16 * 1024);

/** The fields, each its UTF-8 bytes after their length (4 bytes, big-endian). */
function encoded(fields: string[]): Buffer {
  let size = 0;
  const lengths = fields.map((f) => Buffer.byteLength(f, 'utf8'));
  for (const n of lengths) size += 4 + n;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const [i, f] of fields.entries()) {
    at = out.writeUInt32BE(lengths[i]!, at);
    at += out.write(f, at, 'utf8');
  }
  return out;
}

/** What a tree head's signature signs (Ed25519), as text. */
export const treeHeadMessage = (h: { treeSize: number; rootHash: string; timestamp: string }) =>
  `editor-platform tree head v1\n${h.treeSize}\n${h.rootHash}\n${h.timestamp}`;
