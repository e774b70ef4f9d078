import type pg from 'pg';
import { cartItemEvents } from '../src/domain/cart/events.ts';
import { partnerUserEvents } from '../src/domain/partner-user/events.ts';
import type { Design } from '../src/domain/project/design.ts';
import { projectEvents } from '../src/domain/project/events.ts';
import type { Projection } from './projection.ts';

/** Projects and cart items; a deleted user takes theirs along. */
export const projectsProjection: Projection = {
  name: 'projects',
  tables: ['rm_projects', 'rm_cart_items'],
  schema: `
    CREATE TABLE IF NOT EXISTS rm_projects (
      project_id uuid PRIMARY KEY,
      label_id   uuid NOT NULL,
      user_ref   uuid NOT NULL,
      name       text NOT NULL,
      sku        text NOT NULL,
      supplier   text NOT NULL,
      design     jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS rm_projects_user ON rm_projects (user_ref, created_at, project_id);
    CREATE TABLE IF NOT EXISTS rm_cart_items (
      cart_item_id uuid PRIMARY KEY,
      label_id     uuid NOT NULL,
      user_ref     uuid NOT NULL,
      project_id   uuid NOT NULL,
      quantity     integer NOT NULL,
      added_at     timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS rm_cart_items_user ON rm_cart_items (user_ref);`,
  handles: new Set([...projectEvents.types, ...cartItemEvents.types, 'PartnerUserDeleted']),
  async apply(tx, stored) {
    for (const s of stored) {
      if (s.type === 'PartnerUserDeleted') {
        const { userRef } = partnerUserEvents.deserialize(s).data;
        await tx.query('DELETE FROM rm_projects WHERE user_ref = $1', [userRef]);
        await tx.query('DELETE FROM rm_cart_items WHERE user_ref = $1', [userRef]);
        continue;
      }
      if (cartItemEvents.has(s.type)) {
        const e = cartItemEvents.deserialize(s);
        if (e.type === 'CartItemAdded') {
          const d = e.data;
          await tx.query(
            `INSERT INTO rm_cart_items (cart_item_id, label_id, user_ref, project_id, quantity, added_at)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
            [d.cartItemId, d.labelId, d.userRef, d.projectId, d.quantity, d.addedAt],
          );
        } else {
          await tx.query('DELETE FROM rm_cart_items WHERE cart_item_id = $1', [e.data.cartItemId]);
        }
        continue;
      }
      const e = projectEvents.deserialize(s);
      switch (e.type) {
        case 'ProjectCreated': {
          const d = e.data;
          await tx.query(
            `INSERT INTO rm_projects (project_id, label_id, user_ref, name, sku, supplier, design, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ON CONFLICT DO NOTHING`,
            [
              d.projectId,
              d.labelId,
              d.userRef,
              d.name,
              d.sku,
              d.supplier,
              JSON.stringify(d.design),
              d.createdAt,
            ],
          );
          break;
        }
        case 'ProjectUpdated': {
          const d = e.data;
          await tx.query(
            `UPDATE rm_projects SET name = $2, sku = $3, supplier = $4, design = $5, updated_at = $6
             WHERE project_id = $1`,
            [d.projectId, d.name, d.sku, d.supplier, JSON.stringify(d.design), d.updatedAt],
          );
          break;
        }
        case 'ProjectDeleted':
          await tx.query('DELETE FROM rm_projects WHERE project_id = $1', [e.data.projectId]);
          break;
      }
    }
  },
};

export interface ProjectSummary {
  id: string;
  userId: string;
  name: string;
  sku: string;
  supplier: string;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectView extends ProjectSummary {
  design: Design;
}

const SELECT = `SELECT p.project_id, u.user_id, p.name, p.sku, p.supplier, p.design, p.created_at, p.updated_at
  FROM rm_projects p JOIN rm_partner_users u ON u.user_ref = p.user_ref`;

interface Row {
  project_id: string;
  user_id: string;
  name: string;
  sku: string;
  supplier: string;
  design: Design;
  created_at: Date;
  updated_at: Date;
}

const summary = (r: Row): ProjectSummary => ({
  id: r.project_id,
  userId: r.user_id,
  name: r.name,
  sku: r.sku,
  supplier: r.supplier,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

export async function findProject(
  pool: pg.Pool,
  labelId: string,
  userRef: string,
  id: string,
): Promise<ProjectView | undefined> {
  const r = await pool.query<Row>(
    `${SELECT} WHERE p.project_id = $1 AND p.label_id = $2 AND p.user_ref = $3`,
    [id, labelId, userRef],
  );
  const row = r.rows[0];
  return row ? { ...summary(row), design: row.design } : undefined;
}

export async function listUserProjects(
  pool: pg.Pool,
  userRef: string,
  limit: number,
  offset: number,
): Promise<ProjectSummary[]> {
  const r = await pool.query<Row>(
    `${SELECT} WHERE p.user_ref = $1 ORDER BY p.created_at, p.project_id LIMIT $2 OFFSET $3`,
    [userRef, limit, offset],
  );
  return r.rows.map(summary);
}

export async function countUserProjects(
  pool: Pick<pg.Pool, 'query'>,
  userRef: string,
): Promise<number> {
  const r = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM rm_projects WHERE user_ref = $1',
    [userRef],
  );
  return r.rows[0]!.n;
}
