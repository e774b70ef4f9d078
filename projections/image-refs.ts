import type pg from 'pg';
import { mockupTemplateEvents, templateImages } from '../src/domain/mockup-template/events.ts';
import { orderEvents } from '../src/domain/order/events.ts';
import { partnerUserEvents } from '../src/domain/partner-user/events.ts';
import { type Design, parseImageRef } from '../src/domain/project/design.ts';
import { projectEvents } from '../src/domain/project/events.ts';
import type { RecordedEvent } from '../src/eventstore/port.ts';
import type { Projection } from './projection.ts';

/** The images a design refers to (sha256 of each), once each. */
export function imagesOf(design: Design): string[] {
  const found = new Set<string>();
  for (const area of design.areas)
    for (const layer of area.layers) {
      const ref = layer.type === 'image' ? parseImageRef(layer.src) : undefined;
      if (ref) found.add(ref.sha256);
    }
  return [...found];
}

async function hold(tx: pg.PoolClient, holder: string, images: string[]) {
  if (images.length === 0) return;
  await tx.query(
    `INSERT INTO rm_image_refs (sha256, holder) SELECT unnest($1::text[]), $2
     ON CONFLICT DO NOTHING`,
    [images, holder],
  );
}

const release = (tx: pg.PoolClient, holders: string[]) =>
  tx.query('DELETE FROM rm_image_refs WHERE holder = ANY($1::text[])', [holders]);

/**
 * Which stored design images are still held, and by what: a live project (until it or
 * its user is deleted), a mockup template (its photo and masks, while it is set) or an
 * order (for ever: orders are kept, and their print files must render again bit for
 * bit; with the photos of the mockups recorded for them). The image clean-up deletes the rest.
 */
export const imageRefsProjection: Projection = {
  name: 'image-refs',
  tables: ['rm_image_refs', 'rm_image_projects'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_image_refs (
      sha256 text NOT NULL,
      holder text NOT NULL,
      PRIMARY KEY (sha256, holder)
    );
    CREATE INDEX IF NOT EXISTS rm_image_refs_holder ON rm_image_refs (holder);
    CREATE TABLE IF NOT EXISTS rm_image_projects (
      holder   text PRIMARY KEY,
      user_ref uuid NOT NULL
    );
    CREATE INDEX IF NOT EXISTS rm_image_projects_user ON rm_image_projects (user_ref);`,
  handles: new Set([
    'ProjectCreated',
    'ProjectUpdated',
    'ProjectDeleted',
    'PartnerUserDeleted',
    'OrderReceived',
    'MockupRendered',
    ...mockupTemplateEvents.types,
  ]),
  async apply(tx, events) {
    for (const stored of events) await applyOne(tx, stored);
  },
};

async function applyOne(tx: pg.PoolClient, stored: RecordedEvent) {
  const holder = stored.streamId;
  switch (stored.type) {
    case 'ProjectCreated':
    case 'ProjectUpdated':
    case 'ProjectDeleted': {
      const e = projectEvents.deserialize(stored);
      await release(tx, [holder]);
      if (e.type === 'ProjectDeleted') {
        await tx.query('DELETE FROM rm_image_projects WHERE holder = $1', [holder]);
        return;
      }
      if (e.type === 'ProjectCreated') {
        await tx.query(
          'INSERT INTO rm_image_projects (holder, user_ref) VALUES ($1, $2) ON CONFLICT DO NOTHING',
          [holder, e.data.userRef],
        );
      }
      await hold(tx, holder, imagesOf(e.data.design));
      return;
    }
    case 'PartnerUserDeleted': {
      const e = partnerUserEvents.deserialize(stored);
      if (e.type !== 'PartnerUserDeleted') return;
      const gone = await tx.query<{ holder: string }>(
        'DELETE FROM rm_image_projects WHERE user_ref = $1 RETURNING holder',
        [e.data.userRef],
      );
      await release(
        tx,
        gone.rows.map((r) => r.holder),
      );
      return;
    }
    case 'OrderReceived': {
      const e = orderEvents.deserialize(stored);
      if (e.type !== 'OrderReceived') return;
      await hold(tx, holder, [...new Set(e.data.items.flatMap((i) => imagesOf(i.design)))]);
      return;
    }
    case 'MockupRendered': {
      // the photo a recorded mockup was drawn on stays with the order, whatever its template
      // becomes
      const e = orderEvents.deserialize(stored);
      if (e.type === 'MockupRendered') await hold(tx, holder, e.data.templateImages);
      return;
    }
    case 'MockupTemplateSet':
    case 'MockupTemplateDeleted': {
      const e = mockupTemplateEvents.deserialize(stored);
      await release(tx, [holder]);
      if (e.type === 'MockupTemplateSet') await hold(tx, holder, templateImages(e.data));
    }
  }
}

// ---- queries ----

/**
 * In a transaction: whether the read model has taken every event up to `head`, with its
 * checkpoint row shared-locked, so a rebuild (which empties it) or a step of the runner
 * waits until the transaction ends.
 */
export async function holdImageRefsAt(
  tx: pg.PoolClient,
  head: { commit: bigint; prepare: bigint },
): Promise<boolean> {
  const fresh = await tx.query<{ ok: boolean }>(
    `SELECT (commit_pos, prepare_pos) >= ($1::numeric, $2::numeric) AS ok
     FROM projection_checkpoints WHERE name = 'image-refs' FOR SHARE`,
    [head.commit.toString(), head.prepare.toString()],
  );
  return fresh.rows[0]?.ok === true;
}

/** Of these image hashes, those a live project or an order holds. */
export async function heldImages(
  db: Pick<pg.Pool, 'query'>,
  hashes: string[],
): Promise<Set<string>> {
  const held = await db.query<{ sha256: string }>(
    'SELECT DISTINCT sha256 FROM rm_image_refs WHERE sha256 = ANY($1::text[])',
    [hashes],
  );
  return new Set(held.rows.map((r) => r.sha256));
}

/** Of these project holders (`Project-<id>`), those of live projects. */
export async function liveProjects(
  db: Pick<pg.Pool, 'query'>,
  holders: string[],
): Promise<Set<string>> {
  const live = await db.query<{ holder: string }>(
    'SELECT holder FROM rm_image_projects WHERE holder = ANY($1::text[])',
    [holders],
  );
  return new Set(live.rows.map((r) => r.holder));
}
