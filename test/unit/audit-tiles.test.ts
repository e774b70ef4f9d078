import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  type Hash,
  inclusionProof,
  inMemory,
  leafHash,
  rootHash,
} from '../../src/domain/audit/merkle.ts';
import {
  BLOCK,
  subtreesOf,
  type Tile,
  TreeEdge,
  tileKey,
  wanted,
} from '../../src/domain/audit/tiles.ts';

const leaves = (n: number): Hash[] =>
  Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`event ${i}`)));

/** Grows a tree in pages as the projection does: the edge made from what was stored. */
function grow(all: Hash[], pageSizes: number[]) {
  const tiles = new Map<string, Tile>();
  let at = 0;
  for (const n of pageSizes) {
    const last = new Map<number, Tile>();
    for (const t of tiles.values())
      if ((last.get(t.level)?.index ?? -1) < t.index) last.set(t.level, t);
    const edge = new TreeEdge(at, all.slice(at - (at % BLOCK), at), [...last.values()]);
    for (const h of all.slice(at, at + n)) edge.append(h);
    at += n;
    expect(edge.size).toBe(at);
    for (const t of edge.tiles()) tiles.set(tileKey(t.level, t.index), t);
  }
  return subtreesOf(tiles, new Map(all.slice(0, at).map((h, i) => [i, h])));
}

describe('the tree kept as leaves and tiles', () => {
  it('gives every root, inclusion and consistency proof the tree of its leaves gives, grown in uneven pages', async () => {
    // three tile levels full (16^3 blocks of 16 leaves), a fourth begun
    const all = leaves(16 ** 4 + 3 * 16 + 7);
    const stored = grow(all, [1, 2, 13, 16, 1000, 300, 60_000, all.length - 61_332]);
    const memory = inMemory(all);
    for (const size of [1, 2, 3, 15, 16, 17, 255, 256, 257, 4097, 65_535, 65_536, all.length])
      expect(
        (await rootHash(stored, size)).equals(await rootHash(memory, size)),
        `root of ${size}`,
      ).toBe(true);
    for (const [m, size] of [
      [0, 1],
      [5, 300],
      [255, 256],
      [256, 65_536],
      [65_535, all.length],
      [all.length - 1, all.length],
    ] as const) {
      const a = await inclusionProof(stored, m, size);
      const b = await inclusionProof(memory, m, size);
      expect(a.map((h) => h.toString('hex'))).toEqual(b.map((h) => h.toString('hex')));
    }
    for (const [m, n] of [
      [1, 2],
      [3, 257],
      [256, 65_536],
      [1000, all.length],
    ] as const) {
      const a = await consistencyProof(stored, m, n);
      const b = await consistencyProof(memory, m, n);
      expect(a.map((h) => h.toString('hex'))).toEqual(b.map((h) => h.toString('hex')));
    }
  });

  it('refuses a node it does not hold yet', async () => {
    const stored = grow(leaves(300), [300]);
    // leaves 288..299 are there, but not 288..303 (level 4), nor 256..319 (level 6)
    expect(() => stored(3, 36)).not.toThrow();
    expect(() => stored(4, 17)).not.toThrow();
    expect(() => stored(4, 18)).toThrow(/no node 4:18/);
    expect(() => stored(6, 4)).toThrow(/no node 6:4/);
    expect(() => stored(2, 75)).toThrow(/no node 2:75/);
  });

  it('names the tiles and blocks a computation reads, and changes only the edge it grows', async () => {
    const read = await wanted((s) => inclusionProof(s, 3, 70_000));
    // the leaf's own block, and tiles of levels 1 to 3 (the siblings in the first 65,536)
    expect(read.blocks).toEqual([0]);
    expect(read.tiles).toContainEqual({ level: 1, index: 0 });
    expect(read.tiles).toContainEqual({ level: 3, index: 0 });
    const first = new TreeEdge(0, [], []);
    for (const h of leaves(40)) first.append(h);
    const [tile] = first.tiles();
    expect(tile).toMatchObject({ level: 1, index: 0, size: 2 });
    const next = new TreeEdge(40, leaves(40).slice(32), [tile!]);
    for (const h of leaves(10)) next.append(h);
    expect(next.tiles().map(({ level, index, size }) => ({ level, index, size }))).toEqual([
      { level: 1, index: 0, size: 3 },
    ]);
    // the stored tile it started from is left as it was
    expect(tile!.size).toBe(2);
    expect(() => new TreeEdge(40, [], [])).toThrow(/8 in its last block/);
  });
});
