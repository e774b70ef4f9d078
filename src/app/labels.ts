import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { labelDecider, partnerIdDecider } from '../domain/label/decider.ts';
import {
  labelEvents,
  labelStream,
  partnerIdEvents,
  partnerIdStream,
} from '../domain/label/events.ts';
import { DomainError } from '../domain/shared/decider.ts';
import { issueKey } from '../domain/shared/keys.ts';
import type { EventMetadata, EventStore, Position } from '../eventstore/port.ts';
import { handleCommand } from './command-handler.ts';

export interface CreatedLabel {
  labelId: string;
  partnerId: number;
  adminApiKey: string;
  fulfillmentApiKey: string;
  position: Position;
}

/**
 * Creates a label with its admin and fulfillment keys. The partner id is claimed first
 * through its own stream (created with no_stream), so two labels can never share one;
 * without a requested id the next free one is taken, retrying past ids claimed meanwhile.
 */
export async function createLabel(
  store: EventStore,
  pool: pg.Pool,
  input: { name: string; partnerId?: number | undefined },
  metadata: EventMetadata,
): Promise<CreatedLabel> {
  const labelId = randomUUID();
  const meta = { ...metadata, labelId };
  let partnerId = input.partnerId ?? (await nextPartnerId(pool));
  for (let attempt = 0; ; attempt++) {
    try {
      await handleCommand(
        store,
        partnerIdEvents,
        partnerIdDecider,
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
      partnerId += 1;
    }
  }
  const admin = issueKey('adm', labelId);
  const fulfillment = issueKey('ful', labelId);
  const { appended } = await handleCommand(
    store,
    labelEvents,
    labelDecider,
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
  return {
    labelId,
    partnerId,
    adminApiKey: admin.plaintext,
    fulfillmentApiKey: fulfillment.plaintext,
    position: appended!.position,
  };
}

async function nextPartnerId(pool: pg.Pool): Promise<number> {
  const r = await pool.query<{ next: number }>(
    'SELECT COALESCE(MAX(partner_id), 0) + 1 AS next FROM rm_labels',
  );
  return r.rows[0]!.next;
}
