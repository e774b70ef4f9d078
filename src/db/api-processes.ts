import { randomUUID } from 'node:crypto';
import type pg from 'pg';

export const API_PROCESSES_SCHEMA = `
CREATE TABLE IF NOT EXISTS api_processes (
  id      uuid PRIMARY KEY,
  seen_at timestamptz NOT NULL
);`;

/**
 * The API processes of the deployment, as the database sees them: each says it is alive
 * every `intervalMs`, and one not heard from for three intervals counts as gone (killed,
 * its row is left behind and swept by the others). A label's share is the deployment's:
 * each process takes its part of it (`LabelDoor`), so it must know how many there are.
 */
export class ApiProcesses {
  readonly id = randomUUID();
  private live = 1;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly intervalMs = 5000,
  ) {}

  /** how many API processes share the deployment now, this one included */
  get count(): number {
    return this.live;
  }

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      // the database away: the count stays what it was last seen
      this.beat().catch(() => {});
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.pool.query('DELETE FROM api_processes WHERE id = $1', [this.id]).catch(() => {});
  }

  private async beat(): Promise<void> {
    const gone = `${Math.ceil((3 * this.intervalMs) / 1000)} seconds`;
    await this.pool.query(
      `INSERT INTO api_processes (id, seen_at) VALUES ($1, now())
       ON CONFLICT (id) DO UPDATE SET seen_at = now()`,
      [this.id],
    );
    await this.pool.query(`DELETE FROM api_processes WHERE seen_at < now() - $1::interval`, [gone]);
    const r = await this.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM api_processes');
    this.live = Math.max(1, r.rows[0]?.n ?? 1);
  }
}
