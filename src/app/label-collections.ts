import { type LabelCollection, refuseOverMaximum } from '../domain/shared/maximums.ts';

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
  labelId: string,
  collection: LabelCollection,
  held: () => Promise<number>,
  create: () => Promise<T>,
): Promise<T> {
  const key = `${collection}\u0000${labelId}`;
  const before = underWay.get(key) ?? Promise.resolve();
  const mine = before
    .catch(() => {})
    .then(async () => {
      refuseOverMaximum(collection, await held());
      return create();
    });
  underWay.set(key, mine);
  try {
    return await mine;
  } finally {
    if (underWay.get(key) === mine) underWay.delete(key);
  }
}
