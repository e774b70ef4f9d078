import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  EMPTY_ROOT,
  inclusionProof,
  inMemory,
  leafHash,
  rootHash,
  verifyConsistency,
  verifyInclusion,
} from '../../src/domain/audit/merkle.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const unhex = (s: string) => Buffer.from(s, 'hex');

// RFC 6962's reference leaves and the roots of their first 1..8 (the same tree in RFC 9162)
const LEAVES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map((h) => leafHash(unhex(h)));
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

describe('the Merkle tree of RFC 9162', () => {
  const tree = inMemory(LEAVES);

  it('has the reference roots for every size', async () => {
    expect(hex(EMPTY_ROOT)).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    for (let n = 1; n <= 8; n++)
      expect(hex(await rootHash(tree, n)), `size ${n}`).toBe(ROOTS[n - 1]);
  });

  it('makes the reference inclusion proofs', async () => {
    expect((await inclusionProof(tree, 0, 8)).map(hex)).toEqual([
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ]);
    expect((await inclusionProof(tree, 5, 8)).map(hex)).toEqual([
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ]);
  });

  // every shape of the recursion: each leaf of each size, each pair of sizes
  const many = Array.from({ length: 37 }, (_, i) => leafHash(Uint8Array.of(i, i * 7)));
  const big = inMemory(many);

  it('proves every leaf of every size, and no proof survives a changed byte', async () => {
    for (let n = 1; n <= many.length; n++) {
      const root = await rootHash(big, n);
      for (let m = 0; m < n; m++) {
        const proof = await inclusionProof(big, m, n);
        expect(verifyInclusion(many[m]!, m, n, proof, root), `${m} of ${n}`).toBe(true);
        expect(verifyInclusion(many[(m + 1) % n]!, m, n, proof, root) && n > 1).toBe(false);
        if (proof.length) {
          const bent = proof.map((p) => Buffer.from(p));
          bent[0]![0]! ^= 1;
          expect(verifyInclusion(many[m]!, m, n, bent, root)).toBe(false);
        }
      }
    }
  });

  it('proves every smaller tree a prefix of every larger one, and nothing else', async () => {
    for (let n = 1; n <= many.length; n++) {
      const second = await rootHash(big, n);
      for (let m = 1; m <= n; m++) {
        const first = await rootHash(big, m);
        const proof = await consistencyProof(big, m, n);
        expect(verifyConsistency(m, n, proof, first, second), `${m} to ${n}`).toBe(true);
        if (m < n) {
          // another first tree (one leaf changed) is not a prefix
          const other = inMemory(
            many.map((l, i) => (i === m - 1 ? leafHash(Uint8Array.of(255)) : l)),
          );
          expect(verifyConsistency(m, n, proof, await rootHash(other, m), second)).toBe(false);
          expect(verifyConsistency(m, n, [], first, second)).toBe(false);
        }
      }
    }
  });
});
