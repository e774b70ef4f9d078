import { type Hash, nodeHash, type Subtrees } from './merkle.ts';

/*
 * How the tree is kept. The leaves' hashes are written once each, a page of them to a
 * row, and never rewritten: that is all a leaf costs the database. Above them, the tree
 * is kept as tiles: a tile is a complete subtree of 4 levels (16 hashes at its bottom)
 * with every complete node inside it; tile level k holds the tree's levels 4k to 4k+3,
 * and the root of a full tile of level k is a bottom hash of level k+1. Tile level 1's
 * bottom hashes are the roots of the leaves' blocks of 16, made when a block is full.
 * So a node of level 4 or more is one tile away, and one of levels 1 to 3 is at most 15
 * hashes of its block's leaves: a proof is O(log n) rows read and a few hashes made.
 * (The write-ahead log is what the appends wait on: a tree rewriting rows of hashes, or
 * a row per node, took a quarter of its throughput from them.)
 */

export const BLOCK = 16;
export const TILE_HEIGHT = 4;
export const TILE_WIDTH = 2 ** TILE_HEIGHT;
const HASH = 32;

/** Where the nodes of level j (0..3) inside a tile start, in hashes: 16, 8, 4, 2 of them. */
const levelStart = (j: number) => 2 * TILE_WIDTH - 2 ** (TILE_HEIGHT + 1 - j);
/** hashes in a tile's buffer: 16 + 8 + 4 + 2 */
export const TILE_SLOTS = levelStart(TILE_HEIGHT);

export interface Tile {
  /** the tile level k (1 or more): the tree's levels 4k to 4k+3 */
  level: number;
  index: number;
  /** how many bottom hashes it holds (1 to 16) */
  size: number;
  /** TILE_SLOTS hashes, level by level; those not complete yet are zeros */
  hashes: Buffer;
}

const slot = (tile: Tile, j: number, i: number): Hash =>
  tile.hashes.subarray((levelStart(j) + i) * HASH, (levelStart(j) + i + 1) * HASH);

/**
 * Where node (level, index) of the tree is kept (level 4 or more): its tile and its place in it.
 */
export function tileOf(level: number, index: number) {
  const k = Math.floor(level / TILE_HEIGHT);
  const j = level - k * TILE_HEIGHT;
  const perTile = 2 ** (TILE_HEIGHT - j);
  return { level: k, index: Math.floor(index / perTile), j, i: index % perTile };
}

/** The block of leaves under node (level, index) of level 0 to 3. */
export const blockOf = (level: number, index: number) => Math.floor((index * 2 ** level) / BLOCK);

/** The key a tile goes by in a map. */
export const tileKey = (level: number, index: number) => `${level}:${index}`;

/** The hash of a complete tree over hashes (a power of two of them). */
function completeRoot(hashes: Hash[]): Hash {
  let level = hashes;
  while (level.length > 1)
    level = Array.from({ length: level.length / 2 }, (_, i) =>
      nodeHash(level[2 * i]!, level[2 * i + 1]!),
    );
  return level[0]!;
}

/**
 * The subtrees of the tiles and leaves read for a computation (see `wanted`): nodes of
 * level 4 or more from their tiles, the others made from their block's leaves.
 */
export function subtreesOf(
  tiles: ReadonlyMap<string, Tile>,
  leaves: ReadonlyMap<number, Hash>,
): Subtrees {
  const made = new Map<string, Hash>();
  return (level, index) => {
    const missing = () => new Error(`the audit tree has no node ${level}:${index}`);
    if (level < TILE_HEIGHT) {
      const key = tileKey(level, index);
      const known = made.get(key);
      if (known) return known;
      const under = Array.from({ length: 2 ** level }, (_, i) =>
        leaves.get(index * 2 ** level + i),
      );
      if (under.some((h) => !h)) throw missing();
      const hash = completeRoot(under as Hash[]);
      made.set(key, hash);
      return hash;
    }
    const at = tileOf(level, index);
    const tile = tiles.get(tileKey(at.level, at.index));
    if (!tile || (at.i + 1) * 2 ** at.j > tile.size) throw missing();
    return Buffer.from(slot(tile, at.j, at.i));
  };
}

/** What a computation over subtrees reads: it runs once on placeholders to learn it. */
export async function wanted(
  compute: (subtrees: Subtrees) => Promise<unknown>,
): Promise<{ tiles: { level: number; index: number }[]; blocks: number[] }> {
  const tiles = new Map<string, { level: number; index: number }>();
  const blocks = new Set<number>();
  const placeholder = Buffer.alloc(HASH);
  await compute((level, index) => {
    if (level < TILE_HEIGHT) blocks.add(blockOf(level, index));
    else {
      const at = tileOf(level, index);
      tiles.set(tileKey(at.level, at.index), { level: at.level, index: at.index });
    }
    return placeholder;
  });
  return { tiles: [...tiles.values()], blocks: [...blocks] };
}

/**
 * The right edge of the tree, growing: the leaves of the block not full yet, the last
 * tile of each tile level as stored, leaves appended, and the tiles changed by them
 * (each once, as it ends up).
 */
export class TreeEdge {
  private readonly changed = new Map<string, Tile>();
  /** the last tile of each tile level, by level */
  private readonly last: Tile[] = [];
  private size_: number;

  /**
   * `size`: the leaves the tree holds; `open`: the leaves of its last block when not
   * full (size % 16 of them); `lastTiles`: the last tile of each tile level.
   */
  constructor(
    size: number,
    private readonly open: Hash[],
    lastTiles: Tile[],
  ) {
    if (open.length !== size % BLOCK)
      throw new Error(
        `a tree of ${size} leaves has ${size % BLOCK} in its last block, not ${open.length}`,
      );
    for (const t of lastTiles) this.last[t.level] = t;
    this.size_ = size;
  }

  get size(): number {
    return this.size_;
  }

  /** Appends a leaf's hash; every subtree it completes above its block is hashed at once. */
  append(leaf: Hash): void {
    this.open.push(leaf);
    this.size_++;
    if (this.open.length === BLOCK) this.put(1, completeRoot(this.open.splice(0)));
  }

  /** The tiles changed since the edge was made. */
  tiles(): Tile[] {
    return [...this.changed.values()];
  }

  private put(level: number, hash: Hash): void {
    let tile = this.last[level];
    if (!tile || tile.size === TILE_WIDTH) {
      tile = {
        level,
        index: tile ? tile.index + 1 : 0,
        size: 0,
        hashes: Buffer.alloc(TILE_SLOTS * HASH),
      };
      this.last[level] = tile;
    } else if (!this.changed.has(tileKey(level, tile.index))) {
      // a stored tile is changed on a copy of its own
      tile = { ...tile, hashes: Buffer.from(tile.hashes) };
      this.last[level] = tile;
    }
    this.changed.set(tileKey(level, tile.index), tile);
    hash.copy(tile.hashes, tile.size * HASH);
    tile.size++;
    // each level inside the tile whose next node the new hash completes
    for (let j = 1; j < TILE_HEIGHT && tile.size % 2 ** j === 0; j++) {
      const i = tile.size / 2 ** j - 1;
      nodeHash(slot(tile, j - 1, 2 * i), slot(tile, j - 1, 2 * i + 1)).copy(
        tile.hashes,
        (levelStart(j) + i) * HASH,
      );
    }
    if (tile.size === TILE_WIDTH)
      this.put(level + 1, nodeHash(slot(tile, TILE_HEIGHT - 1, 0), slot(tile, TILE_HEIGHT - 1, 1)));
  }
}
