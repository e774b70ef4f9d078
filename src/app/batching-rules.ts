import { labelsWithRules } from '#projections/batches';
import { facilitiesOf } from '#projections/facilities';
import { readyItems } from '#projections/order-production';
import type { BatchingRule } from '../domain/batch/events.ts';
import { labelAggregate } from '../domain/label/decider.ts';
import { type Batching, labelStream } from '../domain/label/events.ts';
import { orderAggregate } from '../domain/order/decider.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { deterministicId } from '../domain/shared/ids.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { layoutFor } from '../production/impose.ts';
import { type BatchInput, MAX_BATCH_ITEMS, type MediaInput, openBatch, specOf } from './batches.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';

/*
 * Batching rules: a label's rules, and the timer's run of them that opens press runs by
 * itself (every N minutes, or when the waiting items would fill a sheet). The press-run
 * commands themselves are in batches.ts.
 */

/** The label's batching rules and hot folder. */
export async function batching(ctx: AppContext, labelId: string): Promise<Batching> {
  const label = await loadState(ctx.store, labelAggregate, labelStream(labelId));
  if (!label.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
  return label.batching;
}

export interface RuleInput extends Omit<BatchInput, 'items' | 'filter'> {
  name: string;
  filter?:
    | {
        printMethod?: string | undefined;
        sku?: string | undefined;
        facilityId?: string | undefined;
      }
    | undefined;
  everyMinutes?: number | undefined;
  whenSheetFull?: boolean | undefined;
}

/** Sets the label's batching rules and hot folder (all of it, as it is from now on). */
export async function setBatching(
  ctx: AppContext,
  labelId: string,
  input: { rules: RuleInput[]; hotFolder?: string | null | undefined },
  metadata: EventMetadata,
): Promise<Batching> {
  const names = new Set<string>();
  const facilities = new Set((await facilitiesOf(ctx.pool, labelId)).map((f) => f.facility_id));
  const rules: BatchingRule[] = input.rules.map((r, i) => {
    if (r.filter?.facilityId && !facilities.has(r.filter.facilityId))
      throw new DomainError('invalid', 'the label has no such facility', 'facility_not_found', {
        field: `rules.${i}.filter.facilityId`,
      });
    if (names.has(r.name))
      throw new DomainError('invalid', `two rules are named ${r.name}`, 'duplicate_rule', {
        field: `rules.${i}.name`,
      });
    names.add(r.name);
    if (r.everyMinutes === undefined && !r.whenSheetFull)
      throw new DomainError(
        'invalid',
        'a rule opens batches every N minutes, when a sheet would be full, or both',
        'rule_never_fires',
        { field: `rules.${i}` },
      );
    return {
      name: r.name,
      filter: {
        ...(r.filter?.printMethod ? { printMethod: r.filter.printMethod } : {}),
        ...(r.filter?.sku ? { sku: r.filter.sku } : {}),
        ...(r.filter?.facilityId ? { facilityId: r.filter.facilityId } : {}),
      },
      spec: specOf(r),
      everyMinutes: r.everyMinutes ?? null,
      whenSheetFull: r.whenSheetFull ?? false,
    };
  });
  const r = await handleCommand(
    ctx.store,
    labelAggregate,
    labelStream(labelId),
    {
      type: 'SetBatching',
      batching: { rules, hotFolder: input.hotFolder ?? null },
      at: new Date(),
    },
    { ...metadata, labelId },
  );
  if (!r.state.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
  await ctx.readModels.seen('batches', r.appended?.position);
  return r.state.batching;
}

/**
 * Runs every label's batching rules once: a rule whose window has come (every N minutes,
 * the window's start naming the batch, so two hosts open it once) or whose ready items
 * would fill a sheet opens a batch of them. Answers the batches opened.
 */
export async function runBatchingRules(ctx: AppContext, now: Date): Promise<string[]> {
  const opened: string[] = [];
  for (const { label_id: labelId, rules } of await labelsWithRules(ctx.pool)) {
    for (const rule of rules) {
      const ready = await readyItems(
        ctx.pool,
        labelId,
        { sku: rule.filter.sku, facilityId: rule.filter.facilityId },
        MAX_BATCH_ITEMS,
      );
      if (ready.length === 0) continue;
      let batchId: string | undefined;
      if (rule.everyMinutes) {
        const window = Math.floor(now.getTime() / (rule.everyMinutes * 60_000));
        batchId = deterministicId('batch-rule', labelId, rule.name, String(window));
      }
      if (!batchId && rule.whenSheetFull && (await fillsASheet(ctx, rule, ready))) {
        // the oldest waiting item, as it became ready: a batch cancelled since frees it anew
        const first = ready[0]!;
        batchId = deterministicId(
          'batch-rule-full',
          labelId,
          rule.name,
          first.order_item_id,
          first.stage_at.toISOString(),
        );
      }
      if (!batchId) continue;
      try {
        const r = await openBatchFromRule(ctx, labelId, rule, batchId);
        opened.push(r.batchId);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'nothing_to_batch') continue;
        throw err;
      }
    }
  }
  return opened;
}

function openBatchFromRule(ctx: AppContext, labelId: string, rule: BatchingRule, batchId: string) {
  const s = rule.spec;
  const media: MediaInput =
    s.media.kind === 'roll'
      ? { rollWidthMm: s.media.widthMm, maxLengthMm: s.media.heightMm }
      : { widthMm: s.media.widthMm, heightMm: s.media.heightMm };
  const { facilityId, ...filter } = rule.filter;
  return openBatch(
    ctx,
    // a facility's rule opens the facility's press runs
    { labelId, facilityId },
    {
      filter,
      media,
      mode: s.mode,
      gutterMm: s.gutterMm,
      marginMm: s.marginMm,
      allowRotation: s.allowRotation,
      copies: s.copies === 'one' ? 1 : 'quantity',
    },
    undefined,
    { actor: 'system:batching' },
    { kind: 'rule', rule: rule.name },
    batchId,
  );
}

/**
 * Would the rule's ready items fill at least one whole sheet? (their pages' print areas, with
 * bleed)
 */
async function fillsASheet(
  ctx: AppContext,
  rule: BatchingRule,
  ready: { order_item_id: string; stream_id: string }[],
) {
  const pieces = [];
  for (const r of ready) {
    const order = await loadState(ctx.store, orderAggregate, r.stream_id);
    const item = order.exists ? order.items.get(r.order_item_id) : undefined;
    if (!item) continue;
    if (
      rule.filter.printMethod &&
      item.item.printMethod.toLowerCase() !== rule.filter.printMethod.toLowerCase()
    )
      continue;
    const copies = rule.spec.copies === 'quantity' ? Math.max(1, item.item.quantity) : 1;
    for (const area of item.item.printAreas)
      pieces.push({
        id: `${r.order_item_id}:${area.code}`,
        widthMm: area.widthMm + 6,
        heightMm: area.heightMm + 6,
        copies,
      });
  }
  if (pieces.length === 0) return false;
  // more area than one sheet holds: no layout needed to know (and none of a size a client chose)
  const usable =
    (rule.spec.media.widthMm - 2 * rule.spec.marginMm) *
    (rule.spec.media.heightMm - 2 * rule.spec.marginMm);
  if (pieces.reduce((a, p) => a + p.widthMm * p.heightMm * p.copies, 0) > usable) return true;
  try {
    return layoutFor(pieces, rule.spec).sheets.length > 1;
  } catch {
    return false; // a piece too large: the rule's timer (or a person) deals with it
  }
}
