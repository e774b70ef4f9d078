import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { storedFacts } from '../../projections/audit-tree.ts';
import {
  leafBytes,
  leafFields,
  leafHashOfFields,
  type StoredEventFacts,
} from '../../src/domain/audit/leaf.ts';
import { leafHash, nodeHash } from '../../src/domain/audit/merkle.ts';
import { eventFromJsonText, storedJson } from '../../src/eventstore/port.ts';

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

const facts: StoredEventFacts = {
  stream: 'Order-ä-1',
  revision: '12',
  id: '00000000-0000-4000-8000-000000000001',
  type: 'OrderReceived',
  schemaVersion: 3,
  data: { name: 'Zoë 😀', nul: '\u0000', nested: { b: 1, a: [1, 'x'] } },
  metadata: { actor: 'integration:x' },
};

/** The leaf's fast paths against the encoding as documented, byte for byte. */
describe('an audit leaf', () => {
  it('hashes leaves larger than the buffer it keeps, and text with a lone surrogate, as leafBytes encodes them', () => {
    for (const data of [{ big: 'é'.repeat(40_000) }, { odd: 'a\ud800b' }, {}]) {
      const e = { ...facts, data };
      expect(leafHashOfFields(leafFields(e))).toEqual(leafHash(leafBytes(e)));
    }
    // and a small one after them: nothing of the larger ones left in the buffer counts
    expect(leafHashOfFields(leafFields(facts))).toEqual(leafHash(leafBytes(facts)));
  });

  it('hashes in one buffer what leafBytes encodes, with its 0x00 prefix', () => {
    const slow = leafHash(leafBytes(facts));
    expect(leafHashOfFields(leafFields(facts))).toEqual(slow);
    expect(slow).toEqual(sha256(Uint8Array.of(0), leafBytes(facts)));
    // seven fields, each its UTF-8 length (4 bytes, big-endian) then its bytes
    const bytes = leafBytes(facts);
    expect(bytes.readUInt32BE(0)).toBe(Buffer.byteLength('Order-ä-1'));
    expect(bytes.subarray(4, 4 + 10).toString('utf8')).toBe('Order-ä-1');
  });

  it('hashes a node as 0x01 and its two children, the same on every call', () => {
    const [l, r] = [sha256(Buffer.from('l')), sha256(Buffer.from('r'))];
    expect(nodeHash(l, r)).toEqual(sha256(Uint8Array.of(1), l, r));
    const first = nodeHash(l, r);
    nodeHash(r, l);
    expect(first).toEqual(sha256(Uint8Array.of(1), l, r));
  });
});

describe('an event read as JSON text', () => {
  // the text as stored: not what JSON.stringify of its parse would write (spaces, order)
  const dataText = '{"b": 1, "a":[1,"x"],  "name":"Zo\\u00eb"}';
  const metadataText = '{"actor":"test"}';
  const read = () =>
    eventFromJsonText(
      {
        id: facts.id,
        streamId: facts.stream,
        revision: 12n,
        type: facts.type,
        schemaVersion: 3,
        position: { commit: 5n, prepare: 7n },
        recordedAt: new Date('2026-11-27T10:00:00.000Z'),
      },
      dataText,
      metadataText,
    );

  it('parses its data when read, and keeps the stored text for the audit leaf', () => {
    const e = read();
    expect(e.data).toEqual({ b: 1, a: [1, 'x'], name: 'Zoë' });
    expect(e.data).toBe(e.data);
    expect(storedJson(e, 'data')).toBe(dataText);
    expect(storedJson(e, 'metadata')).toBe(metadataText);
    // the leaf hashes the text as stored, not the text of a parse
    expect(storedFacts(e).data).toEqual(e.data);
    expect(JSON.stringify(e.data)).not.toBe(dataText);
  });

  it('copies as a plain event (spread, JSON, equality), each read its own objects', () => {
    const [a, b] = [read(), read()];
    expect(a.data).not.toBe(b.data);
    const copy = { ...a };
    expect(Object.getOwnPropertyDescriptor(copy, 'data')?.value).toEqual(a.data);
    expect(JSON.parse(JSON.stringify({ ...a, revision: '12', position: null })).data).toEqual(
      a.data,
    );
    expect(a).toEqual(b);
  });

  it('forgets the stored text once its data is replaced', () => {
    const e = read();
    e.data = { changed: true };
    expect(e.data).toEqual({ changed: true });
    expect(storedJson(e, 'data')).toBe('{"changed":true}');
    expect(storedJson(e, 'metadata')).toBe(metadataText);
  });
});
