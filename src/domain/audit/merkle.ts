import { createHash, hash } from 'node:crypto';

/*
 * The Merkle tree of RFC 9162 (Certificate Transparency 2.0), section 2.1: SHA-256, a
 * leaf hashed with a 0x00 prefix, an interior node with 0x01, and a tree of n leaves
 * split where the left subtree is the largest power of two below n. Roots, inclusion
 * proofs (PATH) and consistency proofs (PROOF) are made from a way to get the hash of
 * any complete, aligned subtree (`Subtrees`), so a tree kept as stored nodes answers a
 * proof with O(log n) reads; the verification algorithms are those of 2.1.3.2 and 2.1.4.2.
 */

export type Hash = Buffer;

const sha256 = (...parts: Uint8Array[]): Hash => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

export const EMPTY_ROOT: Hash = sha256();
export const leafHash = (leaf: Uint8Array): Hash => sha256(Uint8Array.of(0), leaf);
/** 0x01 and two hashes: reused, as a node is hashed at once (the tree's pages make thousands) */
const nodeBytes = Buffer.alloc(65);
export const nodeHash = (left: Uint8Array, right: Uint8Array): Hash => {
  if (left.length !== 32 || right.length !== 32) return sha256(Uint8Array.of(1), left, right);
  nodeBytes[0] = 1;
  nodeBytes.set(left, 1);
  nodeBytes.set(right, 33);
  return hash('sha256', nodeBytes, 'buffer');
};

/** The largest power of two smaller than n (n > 1). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The hash of the complete subtree of `2^level` leaves starting at leaf `index << level`
 * (level 0: a leaf's hash). Only ever asked for subtrees that exist.
 */
export type Subtrees = (level: number, index: number) => Hash | Promise<Hash>;

const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

/**
 * MTH(D[start:start+n]): the hash of the n leaves from `start` (start aligned as the recursion
 * makes it).
 */
export async function rangeHash(subtrees: Subtrees, start: number, n: number): Promise<Hash> {
  if (n === 0) return EMPTY_ROOT;
  if (isPowerOfTwo(n) && start % n === 0) return subtrees(Math.log2(n), start / n);
  const k = splitPoint(n);
  return nodeHash(await rangeHash(subtrees, start, k), await rangeHash(subtrees, start + k, n - k));
}

/** The root of a tree of `size` leaves. */
export const rootHash = (subtrees: Subtrees, size: number) => rangeHash(subtrees, 0, size);

/** PATH(m, D[start:start+n]): the inclusion proof of leaf m, innermost sibling first. */
export async function inclusionProof(
  subtrees: Subtrees,
  m: number,
  size: number,
  start = 0,
): Promise<Hash[]> {
  if (m < 0 || m >= size) throw new RangeError(`leaf ${m} is not in a tree of ${size}`);
  if (size === 1) return [];
  const k = splitPoint(size);
  return m < k
    ? [
        ...(await inclusionProof(subtrees, m, k, start)),
        await rangeHash(subtrees, start + k, size - k),
      ]
    : [
        ...(await inclusionProof(subtrees, m - k, size - k, start + k)),
        await rangeHash(subtrees, start, k),
      ];
}

/** PROOF(m, D[n]): the consistency proof from the tree of m leaves to the tree of n. */
export async function consistencyProof(subtrees: Subtrees, m: number, n: number): Promise<Hash[]> {
  if (m < 0 || m > n) throw new RangeError(`a tree of ${m} is not a prefix of one of ${n}`);
  if (m === 0 || m === n) return [];
  const sub = async (m: number, n: number, start: number, whole: boolean): Promise<Hash[]> => {
    if (m === n) return whole ? [] : [await rangeHash(subtrees, start, n)];
    const k = splitPoint(n);
    return m <= k
      ? [...(await sub(m, k, start, whole)), await rangeHash(subtrees, start + k, n - k)]
      : [...(await sub(m - k, n - k, start + k, false)), await rangeHash(subtrees, start, k)];
  };
  return sub(m, n, 0, true);
}

/**
 * RFC 9162 2.1.3.2: does the proof show leaf `index` (hash `leaf`) in the tree of `size` with root
 * `root`?
 */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  size: number,
  proof: Uint8Array[],
  root: Uint8Array,
): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r: Uint8Array = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0)
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
    } else r = nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && Buffer.compare(Buffer.from(r), Buffer.from(root)) === 0;
}

/**
 * RFC 9162 2.1.4.2: does the proof show the tree of `first` (root `firstRoot`) a prefix of the tree
 * of `second`?
 */
export function verifyConsistency(
  first: number,
  second: number,
  proof: Uint8Array[],
  firstRoot: Uint8Array,
  secondRoot: Uint8Array,
): boolean {
  if (first > second) return false;
  if (first === second)
    return (
      proof.length === 0 && Buffer.compare(Buffer.from(firstRoot), Buffer.from(secondRoot)) === 0
    );
  if (first === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(first) ? [Uint8Array.from(firstRoot), ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Uint8Array = path[0]!;
  let sr: Uint8Array = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0)
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
    } else sr = nodeHash(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return (
    sn === 0 &&
    Buffer.compare(Buffer.from(fr), Buffer.from(firstRoot)) === 0 &&
    Buffer.compare(Buffer.from(sr), Buffer.from(secondRoot)) === 0
  );
}

/** Subtrees of leaves held in memory (tests, and the verifier's from-scratch check). */
export function inMemory(leaves: Hash[]): Subtrees {
  const memo = new Map<string, Hash>();
  const get = (level: number, index: number): Hash => {
    if (level === 0) return leaves[index]!;
    const key = `${level}:${index}`;
    let h = memo.get(key);
    if (!h) {
      h = nodeHash(get(level - 1, index * 2), get(level - 1, index * 2 + 1));
      memo.set(key, h);
    }
    return h;
  };
  return get;
}
