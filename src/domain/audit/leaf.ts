/*
 * What a leaf of the audit log is: an event exactly as the store holds it (its stream,
 * revision, id, type, schema version, data and metadata), in one canonical encoding:
 * JSON with every object's keys sorted by their UTF-16 code units, no whitespace, the
 * revision as a decimal string. The same event always encodes to the same bytes, and any
 * change to any of its fields changes them. Personal data in an event is ciphertext, so
 * the leaf is too: erasing a key leaves every proof as it was.
 */

import { canonicalJson } from '../shared/canonical-json.ts';

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
export const leafBytes = (e: StoredEventFacts): Buffer =>
  Buffer.from(
    canonicalJson({
      data: e.data,
      id: e.id,
      metadata: e.metadata,
      revision: e.revision,
      schemaVersion: e.schemaVersion,
      stream: e.stream,
      type: e.type,
    }),
    'utf8',
  );

/** What a tree head's signature signs (Ed25519), as text. */
export const treeHeadMessage = (h: { treeSize: number; rootHash: string; timestamp: string }) =>
  `editor-platform tree head v1\n${h.treeSize}\n${h.rootHash}\n${h.timestamp}`;
