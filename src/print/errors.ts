import type { ItemFailure } from '../domain/order/events.ts';

export type RenderFailure = Exclude<ItemFailure, 'unknown'>;

/** The design cannot be printed as it is: rendering again will not help. */
export class RenderError extends Error {
  override name = 'RenderError';
  constructor(
    message: string,
    readonly kind: RenderFailure = 'layout',
  ) {
    super(message);
  }
}
