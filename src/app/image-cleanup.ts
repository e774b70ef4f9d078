import path from 'node:path';
import type pg from 'pg';
import type { Logger } from 'pino';
import { heldImages, holdImageRefsAt, liveProjects } from '#projections/image-refs';
import type { ProjectionRunner } from '#projections/projection-runner';
import { inTransaction } from '../db/database.ts';
import { projectStream } from '../domain/project/events.ts';
import type { EventStore } from '../eventstore/port.ts';
import type { FileStorage } from '../storage/port.ts';

/** files decided per transaction (which holds the read model still, see below) */
const BATCH = 200;

export interface ImageCleanupDeps {
  pool: pg.Pool;
  store: EventStore;
  runner: ProjectionRunner;
  images: FileStorage;
}

/**
 * Deletes stored design images that nothing holds any more (image-refs read model):
 * those of deleted projects and deleted users, unless an order, a mockup template or
 * another project holds the same image; and the cached mockups of deleted projects and
 * of projects' earlier revisions. Only once the read model has caught up with every event
 * appended before the run; an image put within `graceMs` is kept, since its project
 * may not be recorded yet. Undefined when the read model did not catch up in time.
 */
const DESIGN_IMAGE = /^[0-9a-f]{2}\/[0-9a-f]{64}$/;

export async function removeUnheldImages(
  deps: ImageCleanupDeps,
  graceMs: number,
): Promise<{ removed: number; kept: number } | undefined> {
  const since = new Date(Date.now() - graceMs);
  const head = await deps.store.headPosition();
  if (!(await deps.runner.waitFor('image-refs', head, 30_000))) return undefined;
  // design images only: output profiles (icc/) are kept, orders replay with them
  const keys = (await deps.images.list('')).filter((k) => DESIGN_IMAGE.test(k));
  let removed = 0;
  for (let i = 0; i < keys.length; i += BATCH) {
    const batch = keys.slice(i, i + BATCH);
    const done = await inTransaction(deps.pool, async (tx) => {
      if (!(await holdImageRefsAt(tx, head))) return undefined;
      const heldSet = await heldImages(
        tx,
        batch.map((k) => path.basename(k)),
      );
      let n = 0;
      for (const key of batch) {
        if (!heldSet.has(path.basename(key)) && (await deps.images.remove(key, since))) n++;
      }
      return n;
    });
    if (done === undefined) return undefined;
    removed += done;
  }
  const mockups = await removeStaleMockups(deps, since);
  return { removed: removed + mockups.removed, kept: keys.length - removed + mockups.kept };
}

/** A project's cached mockup: `mockups/<projectId>/p<project revision>-...`. */
const PROJECT_MOCKUP = /^mockups\/([0-9a-f-]{36})\/p([0-9]+)-/;

/**
 * The cached mockups of projects (app/mockups.ts) that no one will ask for again: those
 * of deleted projects, and those of a project's earlier revisions.
 */
async function removeStaleMockups(deps: ImageCleanupDeps, since: Date) {
  const byProject = new Map<string, { key: string; revision: number }[]>();
  for (const key of await deps.images.list('mockups/')) {
    const m = PROJECT_MOCKUP.exec(key);
    if (!m) continue;
    const holder = projectStream(m[1]!);
    const files = byProject.get(holder) ?? [];
    files.push({ key, revision: Number(m[2]) });
    byProject.set(holder, files);
  }
  const live = await liveProjects(deps.pool, [...byProject.keys()]);
  let removed = 0;
  let kept = 0;
  for (const [holder, files] of byProject) {
    const latest = Math.max(...files.map((f) => f.revision));
    for (const f of files) {
      const stale = !live.has(holder) || f.revision < latest;
      if (stale && (await deps.images.remove(f.key, since))) removed++;
      else kept++;
    }
  }
  return { removed, kept };
}

/** Runs the clean-up every `intervalMs`, one run at a time; stop() waits for a run under way. */
export function scheduleImageCleanup(
  deps: ImageCleanupDeps,
  options: { intervalMs: number; graceMs: number },
  log: Logger,
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = removeUnheldImages(deps, options.graceMs)
      .then((r) => {
        if (r === undefined) log.warn('image clean-up skipped: image-refs read model lags');
        else if (r.removed > 0) log.info(r, 'images no project or order holds removed');
      })
      .catch((err) => log.error({ err }, 'image clean-up failed'))
      .finally(() => {
        running = undefined;
      });
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
