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
  let partnerId = input.partnerId ?? (await freePartnerId(pool, 1));
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
      // claimed meanwhile (the read model may not show it yet): the next free one after it
      partnerId = await freePartnerId(pool, partnerId + 1);
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

export const MAX_PARTNER_ID = 2_147_483_647;

/**
 * The smallest partner id from `from` on that no label has: gaps are filled, so an
 * operator's choice of a large id (even the largest) never leaves no next one.
 */
async function freePartnerId(pool: pg.Pool, from: number): Promise<number> {
  const r = await pool.query<{ next: string | null }>(
    `SELECT CASE
       WHEN $1::int8 > $2::int8 THEN NULL
       WHEN NOT EXISTS (SELECT 1 FROM rm_labels WHERE partner_id = $1::int8) THEN $1::int8
       ELSE (SELECT min(l.partner_id)::int8 + 1 FROM rm_labels l
             WHERE l.partner_id >= $1::int8 AND l.partner_id < $2::int8
               AND NOT EXISTS (SELECT 1 FROM rm_labels m WHERE m.partner_id = l.partner_id + 1))
     END AS next`,
    [from, MAX_PARTNER_ID],
  );
  const next = r.rows[0]?.next;
  if (next === null || next === undefined)
    throw new DomainError('conflict', 'every partner id is taken', 'no_partner_id_left');
  return Number(next);
}
