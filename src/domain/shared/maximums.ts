import { DomainError } from './decider.ts';

/**
 * The most of each collection one label may hold: work over a collection (routing over
 * facilities, deliveries over endpoints, matching over templates) must stay bounded
 * however much a label creates. Those inside one document (holidays of a facility,
 * approvers, SKUs of a policy) are bounded by its schema; docs/design-notes.md lists
 * both.
 */
export const LABEL_MAXIMUMS = {
  facilities: 50,
  shopIntegrations: 200,
  mockupTemplates: 500,
  images: 1000,
} as const;
export type LabelCollection = keyof typeof LABEL_MAXIMUMS;

const WORDS: Record<LabelCollection, string> = {
  facilities: 'facilities',
  shopIntegrations: 'shop integrations',
  mockupTemplates: 'mockup templates',
  images: 'images',
};

/** Refuses one more of a collection a label holds `held` of already (409 limit_reached). */
export function refuseOverMaximum(collection: LabelCollection, held: number): void {
  const max = LABEL_MAXIMUMS[collection];
  if (held >= max)
    throw new DomainError(
      'conflict',
      `a label holds at most ${max} ${WORDS[collection]}, and this one holds ${held}`,
      'limit_reached',
    );
}
