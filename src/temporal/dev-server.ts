import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestWorkflowEnvironment } from '@temporalio/testing';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** where scripts/install-temporal-cli.sh links the CLI */
export const PROJECT_CLI = path.join(ROOT, '.cache/temporal/bin/temporal');

export interface LocalTemporal {
  address: string;
  namespace: string;
  stop(): Promise<void>;
}

/**
 * Starts a Temporal dev server (the official CLI) as a child process: TEMPORAL_CLI_PATH
 * when given, else the project's installed CLI, else the SDK's own download.
 * With `dbFile`, workflow state survives a restart.
 */
export async function startLocalTemporal(options: {
  cliPath?: string | undefined;
  dbFile?: string | undefined;
  namespace?: string;
}): Promise<LocalTemporal> {
  const cli = options.cliPath ?? (existsSync(PROJECT_CLI) ? PROJECT_CLI : undefined);
  const namespace = options.namespace ?? 'default';
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: cli ? { type: 'existing-path', path: cli } : { type: 'cached-download' },
      namespace,
      ...(options.dbFile ? { dbFilename: options.dbFile } : {}),
      log: { format: 'json', level: 'error' },
    },
  });
  return { address: env.address, namespace, stop: () => env.teardown() };
}
