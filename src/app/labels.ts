import { randomUUID } from 'node:crypto';
import { freePartnerId, type LabelRow, listLabels } from '#projections/labels';
import { labelAggregate, partnerIdAggregate } from '../domain/label/decider.ts';
import { labelStream, partnerIdStream } from '../domain/label/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { issueKey } from '../domain/shared/keys.ts';
import type { EventMetadata } from '../eventstore/port.ts';
import { handleCommand, loadState } from './command-handler.ts';
import type { AppContext } from './context.ts';

export interface CreatedLabel {
  labelId: string;
  partnerId: number;
  adminApiKey: string;
  fulfillmentApiKey: string;
}

/**
 * Creates a label with its admin and fulfillment keys. The partner id is claimed first
 * through its own stream (created with no_stream), so two labels can never share one;
 * without a requested id the next free one is taken, retrying past ids claimed meanwhile.
 */
export async function createLabel(
  { store, pool, readModels }: AppContext,
  input: { name: string; partnerId?: number | undefined },
  metadata: EventMetadata,
): Promise<CreatedLabel> {
  const labelId = randomUUID();
  const meta = { ...metadata, labelId };
  const free = async (from: number) => {
    const id = await freePartnerId(pool, from);
    if (id === undefined)
      throw new DomainError('conflict', 'every partner id is taken', 'no_partner_id_left');
    return id;
  };
  let partnerId = input.partnerId ?? (await free(1));
  for (let attempt = 0; ; attempt++) {
    try {
      await handleCommand(
        store,
        partnerIdAggregate,
        partnerIdStream(partnerId),
        {
          type: 'ReservePartnerId',
          partnerId,
          labelId,
        },
        meta,
      );
      break;
    } catch (err) {
      const taken = err instanceof DomainError && err.code === 'partner_id_taken';
      if (!taken || input.partnerId !== undefined || attempt >= 20) throw err;
      // claimed meanwhile (the read model may not show it yet): the next free one after it
      partnerId = await free(partnerId + 1);
    }
  }
  const admin = issueKey('adm', labelId);
  const fulfillment = issueKey('ful', labelId);
  const { appended } = await handleCommand(
    store,
    labelAggregate,
    labelStream(labelId),
    {
      type: 'CreateLabel',
      labelId,
      name: input.name,
      partnerId,
      adminKey: admin.stored,
      fulfillmentKey: fulfillment.stored,
      at: new Date(),
    },
    meta,
  );
  await readModels.seen('labels', appended?.position);
  return {
    labelId,
    partnerId,
    adminApiKey: admin.plaintext,
    fulfillmentApiKey: fulfillment.plaintext,
  };
}

/** Sets how long a label's new orders may take to render before they are overdue. */
export async function setRenderDeadline(
  ctx: AppContext,
  labelId: string,
  renderWithinMinutes: number,
  metadata: EventMetadata,
): Promise<{ labelId: string; renderWithinMinutes: number }> {
  const r = await handleCommand(
    ctx.store,
    labelAggregate,
    labelStream(labelId),
    { type: 'SetRenderDeadline', renderWithinMinutes, at: new Date() },
    { ...metadata, labelId },
  );
  await ctx.readModels.seen('labels', r.appended?.position);
  return { labelId, renderWithinMinutes };
}

/** Sets how long a label's new orders may take from receipt to shipment before they are late. */
export async function setShipDeadline(
  ctx: AppContext,
  labelId: string,
  shipWithinHours: number,
  metadata: EventMetadata,
): Promise<{ labelId: string; shipWithinHours: number }> {
  const r = await handleCommand(
    ctx.store,
    labelAggregate,
    labelStream(labelId),
    { type: 'SetShipDeadline', shipWithinHours, at: new Date() },
    { ...metadata, labelId },
  );
  await ctx.readModels.seen('labels', r.appended?.position);
  return { labelId, shipWithinHours };
}

/** A label's deadlines: to render, and to ship. */
export async function labelDeadlines(
  ctx: AppContext,
  labelId: string,
): Promise<{ labelId: string; renderWithinMinutes: number; shipWithinHours: number }> {
  const label = await loadState(ctx.store, labelAggregate, labelStream(labelId));
  if (!label.exists) throw new DomainError('not_found', 'label not found', 'label_not_found');
  const { renderWithinMinutes, shipWithinHours } = label;
  return { labelId, renderWithinMinutes, shipWithinHours };
}

/** Every label (the operator), or one label (its admin), by name. */
export const labelList = (ctx: AppContext, labelId?: string): Promise<LabelRow[]> =>
  listLabels(ctx.pool, labelId);

/** Sets a label's factor on the deployment's share of every cost class (the operator's call). */
export async function setLabelShare(
  ctx: AppContext,
  labelId: string,
  factor: number,
  metadata: EventMetadata,
): Promise<{ labelId: string; factor: number }> {
  const r = await handleCommand(
    ctx.store,
    labelAggregate,
    labelStream(labelId),
    { type: 'SetShare', factor, at: new Date() },
    { ...metadata, labelId },
  );
  await ctx.readModels.seen('labels', r.appended?.position);
  return { labelId, factor };
}
