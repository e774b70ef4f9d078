import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { startLocalTemporal } from '../../src/temporal/dev-server.ts';
import { searchAttributeTypes } from '../../src/temporal/search-attributes.ts';
import { startPostgresCluster } from './postgres-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    temporalAddress: string;
  }
}

/**
 * Real servers for the whole run: a throwaway PostgreSQL cluster (or TEST_DATABASE_URL)
 * and a Temporal dev server (or TEMPORAL_ADDRESS). Docker is not needed.
 */
export default async function setup(project: TestProject) {
  // every temporary directory of the run (apps' data, clusters, renders) under one that
  // goes with it: the test files start hundreds of apps, a few GB of files in all
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'test-run-'));
  chmodSync(scratch, 0o755); // PostgreSQL runs as its own user when the tests run as root
  process.env.TMPDIR = scratch;
  const stops: (() => unknown)[] = [() => rmSync(scratch, { recursive: true, force: true })];
  let postgresUrl = process.env.TEST_DATABASE_URL;
  if (!postgresUrl) {
    const cluster = await startPostgresCluster();
    stops.push(() => cluster.stop());
    postgresUrl = cluster.url;
  }
  let temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (!temporalAddress) {
    const temporal = await startLocalTemporal({
      cliPath: process.env.TEMPORAL_CLI_PATH,
      searchAttributes: searchAttributeTypes(),
    });
    stops.push(() => temporal.stop());
    temporalAddress = temporal.address;
  }
  project.provide('postgresUrl', postgresUrl);
  project.provide('temporalAddress', temporalAddress);
  return async () => {
    for (const s of stops.reverse()) await s();
  };
}
