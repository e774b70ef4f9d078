import { generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { leafBytes, type StoredEventFacts, treeHeadMessage } from '../../src/domain/audit/leaf.ts';
import {
  consistencyProof,
  inclusionProof,
  inMemory,
  leafHash,
  rootHash,
} from '../../src/domain/audit/merkle.ts';
import { jsonFiles, verifier } from '../helpers/audit.ts';

const write = jsonFiles('audit-');

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const keys = write('keys.json', {
  keys: [
    {
      keyId: 'k1',
      publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
    },
  ],
});
const headOf = (treeSize: number, root: Buffer) => {
  const h = { treeSize, rootHash: root.toString('hex'), timestamp: '2026-11-27T06:00:00.000Z' };
  return {
    ...h,
    keyId: 'k1',
    signature: sign(null, Buffer.from(treeHeadMessage(h)), privateKey).toString('base64'),
  };
};

// a log of 25 events of three streams, as the store would hold them
const events: StoredEventFacts[] = Array.from({ length: 25 }, (_, i) => ({
  stream: `Order-x-${i % 3}`,
  revision: String(Math.floor(i / 3)),
  id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  type: i % 3 === 0 ? 'OrderReceived' : 'PrintFileGenerated',
  schemaVersion: 1,
  data: { n: i, sha256: 'ab'.repeat(32), nested: { z: 1, a: [i, 'x'] } },
  metadata: { actor: 'workflow:print', correlationId: `req-${i}` },
}));
const leaves = events.map((e) => leafHash(leafBytes(e)));
const tree = inMemory(leaves);

async function bundleOf(size: number, indexes: number[], log = events) {
  return {
    treeHead: headOf(size, await rootHash(tree, size)),
    events: await Promise.all(
      indexes.map(async (i) => ({
        leafIndex: i,
        event: log[i]!,
        inclusionProof: (await inclusionProof(tree, i, size)).map((h) => h.toString('hex')),
      })),
    ),
  };
}

describe('the offline verifier (scripts/verify-audit.mjs)', () => {
  it("stands alone: node's own modules only, nothing of the service", () => {
    const source = readFileSync('scripts/verify-audit.mjs', 'utf8');
    const imports = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(imports).toEqual(['node:crypto', 'node:fs']);
  });

  it('accepts a bundle whose events prove into its signed head, and names the first that does not', async () => {
    const bundle = await bundleOf(25, [0, 3, 24]);
    expect(verifier(write('b.json', bundle), '--public-keys', keys)).toMatchObject({ code: 0 });
    // one byte of one event changed: named, exit 1
    const changed = structuredClone(bundle);
    (changed.events[1]!.event.data as { n: number }).n = 4;
    const r = verifier(write('c.json', changed), '--public-keys', keys);
    expect(r.code).toBe(1);
    expect(r.said).toContain(`event ${events[3]!.id}`);
    // the leaf is the JSON text as stored: the same data with its keys in another order
    // is other text, refused
    const reordered = structuredClone(bundle);
    const d = reordered.events[0]!.event.data as Record<string, unknown>;
    reordered.events[0]!.event.data = Object.fromEntries(Object.entries(d).reverse());
    expect(verifier(write('d.json', reordered), '--public-keys', keys).code).toBe(1);
    // a head that was not signed by a listed key, or whose size was changed
    const forged = structuredClone(bundle);
    forged.treeHead.treeSize = 24;
    expect(verifier(write('e.json', forged), '--public-keys', keys).said).toMatch(/signature/);
    const unknown = structuredClone(bundle);
    unknown.treeHead.keyId = 'k9';
    expect(verifier(write('f.json', unknown), '--public-keys', keys).said).toMatch(/k9/);
    // two events swapped: each is at another leaf than it claims
    const swapped = structuredClone(bundle);
    [swapped.events[0]!.event, swapped.events[1]!.event] = [
      swapped.events[1]!.event,
      swapped.events[0]!.event,
    ];
    expect(verifier(write('g.json', swapped), '--public-keys', keys).code).toBe(1);
  });

  it('checks that the head extends one the shop kept, and finds a log rewritten since', async () => {
    const earlier = headOf(10, await rootHash(tree, 10));
    const bundle = await bundleOf(25, [12]);
    const proof = {
      from: 10,
      to: 25,
      proof: (await consistencyProof(tree, 10, 25)).map((h) => h.toString('hex')),
    };
    const args = (head: unknown, p: unknown) => [
      write('bundle.json', bundle),
      '--public-keys',
      keys,
      '--earlier',
      write('earlier.json', head),
      '--consistency',
      write('proof.json', p),
    ];
    expect(verifier(...args(earlier, proof))).toMatchObject({ code: 0 });
    // the log as the shop saw it at 10 had another event 4: this head does not extend it
    const before = inMemory(leaves.map((l, i) => (i === 4 ? leafHash(Buffer.from('x')) : l)));
    const rewritten = verifier(...args(headOf(10, await rootHash(before, 10)), proof));
    expect(rewritten.code).toBe(1);
    expect(rewritten.said).toMatch(/does not extend the earlier one of size 10/);
  });

  it('makes the tree of an export of the log from scratch, and checks it against a signed head', async () => {
    let n = 0;
    const ndjson = (log: StoredEventFacts[]) => {
      const file = write(`log-${n++}.ndjson`, null);
      writeFileSync(file, log.map((e) => JSON.stringify(e)).join('\n'));
      return file;
    };
    const exported = ndjson(events);
    const plain = verifier('--log', exported);
    expect(plain.code).toBe(0);
    expect(plain.said).toContain(`25 events, root ${(await rootHash(tree, 25)).toString('hex')}`);
    const head = write('head.json', headOf(20, await rootHash(tree, 20)));
    expect(verifier('--log', exported, '--head', head, '--public-keys', keys)).toMatchObject({
      code: 0,
    });
    // an event of the first 20 changed since the head was signed
    const changed = structuredClone(events);
    (changed[7]!.data as { n: number }).n = 70;
    const r = verifier('--log', ndjson(changed), '--head', head, '--public-keys', keys);
    expect(r.code).toBe(1);
    expect(r.said).toMatch(/the first 20 events of the export do not make the tree head's root/);
    // one after them is no matter to that head
    const later = structuredClone(events);
    (later[22]!.data as { n: number }).n = 70;
    expect(verifier('--log', ndjson(later), '--head', head, '--public-keys', keys).code).toBe(0);
  });
});
