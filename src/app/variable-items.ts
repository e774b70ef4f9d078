import type { OrderItem } from '../domain/order/events.ts';
import { designFields } from '../domain/project/design.ts';
import { DomainError } from '../domain/shared/decider.ts';
import type { AppContext } from './context.ts';
import { checkAgainst, keptDataset } from './datasets.ts';
import { labelImagesNow } from './label-images.ts';

/** How many of a refused data set's problems the 400 names. */
const NAMED_PROBLEMS = 5;

const invalid = (code: string, message: string) => new DomainError('invalid', message, code);

/**
 * The items of a sale that name a data set become variable items: the data set is the
 * label's and still kept, its rows pass their check against the item's design (a data
 * set that fails is refused, naming its first problems), and the item records the data
 * set and how far the label's images had come. A design that names fields needs a data
 * set; variable data prints in CMYK, never with inks.
 */
export async function withDatasets(
  ctx: AppContext,
  labelId: string,
  items: OrderItem[],
  datasets: Map<string, string>,
): Promise<OrderItem[]> {
  const images = datasets.size > 0 ? await labelImagesNow(ctx.store, labelId) : undefined;
  const out: OrderItem[] = [];
  for (const item of items) {
    const datasetId = datasets.get(item.itemId);
    const fields = designFields(item.design);
    if (!datasetId) {
      if (fields.length > 0)
        throw invalid(
          'dataset_required',
          `item ${item.itemId}: its design names fields (${fields.join(', ')}); name the data set that fills them (datasetId)`,
        );
      out.push(item);
      continue;
    }
    if (ctx.inkMethods.includes(item.printMethod.toLowerCase()))
      throw invalid(
        'variable_data_with_inks',
        `item ${item.itemId}: ${item.sku} is printed by ${item.printMethod} with inks; variable data prints digitally (CMYK)`,
      );
    const facts = await keptDataset(ctx, labelId, datasetId).catch((err: unknown) => {
      if (err instanceof DomainError && err.kind === 'not_found')
        throw invalid('unknown_dataset', `item ${item.itemId}: ${err.message} (${datasetId})`);
      throw err;
    });
    const check = await checkAgainst(ctx, labelId, facts, item.design);
    if (!check.ok) {
      const named = check.problems
        .slice(0, NAMED_PROBLEMS)
        .map((p) => `row ${p.row}, ${p.field}: ${p.code} (${p.detail})`)
        .join('; ');
      throw invalid(
        'dataset_problems',
        `item ${item.itemId}: the data set has ${check.problemCount} problem${check.problemCount === 1 ? '' : 's'}: ${named}${check.problemCount > NAMED_PROBLEMS ? '; …' : ''} (POST /api/datasets/${datasetId}/check lists them)`,
      );
    }
    out.push({
      ...item,
      dataset: {
        datasetId,
        sha256: facts.sha256,
        rows: facts.rows,
        fields: facts.fields,
        storageKey: facts.storageKey,
        labelImagesAt: images?.at ?? 0,
      },
    });
  }
  return out;
}
