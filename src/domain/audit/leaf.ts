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

/** The bytes of an event's leaf (hashed with RFC 9162's 0x00 prefix: merkle.ts leafHash). */
export function leafBytes(e: StoredEventFacts): Buffer {
  const fields = [
    e.stream,
    e.revision,
    e.id,
    e.type,
    String(e.schemaVersion),
    JSON.stringify(e.data),
    JSON.stringify(e.metadata),
  ].map((f) => Buffer.from(f, 'utf8'));
  const out = Buffer.allocUnsafe(fields.reduce((n, f) => n + 4 + f.length, 0));
  let at = 0;
  for (const f of fields) {
    at = out.writeUInt32BE(f.length, at);
    at += f.copy(out, at);
  }
  return out;
}

/** What a tree head's signature signs (Ed25519), as text. */
export const treeHeadMessage = (h: { treeSize: number; rootHash: string; timestamp: string }) =>
  `editor-platform tree head v1\n${h.treeSize}\n${h.rootHash}\n${h.timestamp}`;
