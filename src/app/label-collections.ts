import {
  type LabelCollection,
  type LabelMaximums,
  refuseOverMaximum,
} from '../domain/shared/maximums.ts';

/** the last creation under way per label and collection in this process */
const underWay = new Map<string, Promise<unknown>>();

/**
 * One more of a label's collection held in streams of their own (a facility, a shop
 * integration, a template), counted from its read model: creations of one label's
 * collection run one after another in this process, each counting what the one before
 * it made (its use case waits for its read model), so a race of the label's own
 * requests cannot pass the maximum; several API processes can pass it by one each.
 */
export async function addingTo<T>(
  maximums: LabelMaximums,
  /** whose collection: the label (a user, for a user's projects) */
  owner: string,
  collection: LabelCollection,
  /** what the label holds now (and, when a creation adds more than one, how many it adds) */
  held: () => Promise<number | { held: number; adding: number }>,
  create: () => Promise<T>,
): Promise<T> {
  const key = `${collection}\u0000${owner}`;
  const before = underWay.get(key) ?? Promise.resolve();
  const mine = before
    .catch(() => {})
    .then(async () => {
      const now = await held();
      const { held: count, adding } = typeof now === 'number' ? { held: now, adding: 1 } : now;
      refuseOverMaximum(collection, count, adding, maximums[collection]);
      return create();
    });
  underWay.set(key, mine);
  try {
    return await mine;
  } finally {
    if (underWay.get(key) === mine) underWay.delete(key);
  }
}
