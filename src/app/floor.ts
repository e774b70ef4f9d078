/** Who acts on the shop floor: a label's key (every item), or a facility's (its own items only). */
export interface Floor {
  labelId: string;
  facilityId?: string | undefined;
}

/** A label's id is its whole shop floor. */
export const floorOf = (at: string | Floor): Floor =>
  typeof at === 'string' ? { labelId: at } : at;
