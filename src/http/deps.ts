import type pg from 'pg';
import type { ProjectionRunner } from '../../projections/runner.ts';
import type { Config } from '../config.ts';
import type { EventStore, Position } from '../eventstore/port.ts';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** What route plugins need; built by the composition root (src/app/). */
export interface HttpDeps {
  config: Config;
  store: EventStore;
  pool: pg.Pool;
  runner: ProjectionRunner;
  readiness: ReadinessCheck[];
}

/** Waits (bounded) until a projection has seen an append, so the caller can read its write. */
export async function readYourWrite(
  deps: HttpDeps,
  projection: string,
  position: Position | undefined,
) {
  if (position) await deps.runner.waitFor(projection, position, 3000);
}
