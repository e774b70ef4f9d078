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
  /** kept (uploaded and not erased), each at most 50 MB and 100,000 rows */
  datasets: 1000,
  /** price rows (SKU, currency and minimum quantity), an import adding or replacing them */
  priceRows: 20_000,
  /** editor users registered through the partner's system */
  editorUsers: 100_000,
  /** saved projects of one editor user (so at most 100,000,000 a label) */
  projectsPerUser: 1000,
} as const;
export type LabelCollection = keyof typeof LABEL_MAXIMUMS;
export type LabelMaximums = Record<LabelCollection, number>;

/**
 * The maximums with a deployment's setting applied (`LABEL_MAXIMUMS`, such as
 * `datasets=200,priceRows=50000`): each named collection's maximum replaced.
 */
export function parseMaximums(setting: string | undefined): LabelMaximums {
  const maximums: LabelMaximums = { ...LABEL_MAXIMUMS };
  for (const part of (setting ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z]+)=(\d{1,9})$/.exec(part);
    if (!m) throw new Error(`"${part.slice(0, 40)}" is not collection=maximum`);
    const [, name, max] = m;
    if (!Object.hasOwn(LABEL_MAXIMUMS, name!))
      throw new Error(`no collection "${name}" (one of ${Object.keys(LABEL_MAXIMUMS).join(', ')})`);
    if (Number(max) < 1) throw new Error(`${name} needs a maximum of at least 1`);
    maximums[name as LabelCollection] = Number(max);
  }
  return maximums;
}

const WORDS: Record<LabelCollection, string> = {
  facilities: 'facilities',
  shopIntegrations: 'shop integrations',
  mockupTemplates: 'mockup templates',
  images: 'images',
  datasets: 'data sets',
  priceRows: 'price rows',
  editorUsers: 'editor users',
  projectsPerUser: 'projects per editor user',
};

/**
 * Refuses `adding` more of a collection a label (or, for projects, a user) holds `held`
 * of already, where that passes the maximum (409 limit_reached).
 */
export function refuseOverMaximum(
  collection: LabelCollection,
  held: number,
  adding = 1,
  max: number = LABEL_MAXIMUMS[collection],
): void {
  if (held + adding > max)
    throw new DomainError(
      'conflict',
      `${collection === 'projectsPerUser' ? 'an editor user' : 'a label'} holds at most ${max.toLocaleString('en')} ${WORDS[collection]}, and this one holds ${held.toLocaleString('en')}${adding > 1 ? ` (this would add ${adding.toLocaleString('en')})` : ''}`,
      'limit_reached',
    );
}
