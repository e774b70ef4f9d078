import { createLogger } from './app/logger.ts';
import { startApp } from './bootstrap/start.ts';
import { ConfigError, loadConfig, type Role } from './config.ts';

const ROLES: Role[] = ['api', 'worker', 'projector', 'all'];
/** a stop that takes longer than this (a hung dependency) ends the process anyway */
const STOP_LIMIT_MS = 30_000;

function parseRole(argv: string[]): Role {
  const i = argv.indexOf('--role');
  const value =
    i >= 0 ? argv[i + 1] : (argv.find((a) => a.startsWith('--role='))?.slice(7) ?? 'all');
  if (!ROLES.includes(value as Role)) {
    throw new ConfigError(`invalid --role ${value ?? '(missing)'}: one of ${ROLES.join(', ')}`);
  }
  return value as Role;
}

async function main() {
  let loaded: ReturnType<typeof loadConfig>;
  let role: Role;
  try {
    role = parseRole(process.argv.slice(2));
    loaded = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const { config, generatedOperatorKey } = loaded;
  const log = createLogger(config.logLevel);
  // a failure nobody awaited is logged, never the end of the process: every part
  // supervises its own connections and retries
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
  if (generatedOperatorKey) {
    // shown once, on a terminal only: output that is not a terminal may be a log
    const where = `${config.dataDir}/operator-api-key`;
    process.stdout.write(
      process.stdout.isTTY
        ? `\nOperator API key (stored in ${where}):\n  ${generatedOperatorKey}\n\n`
        : `\nAn operator API key was generated; it is stored in ${where} (readable by this user only)\n\n`,
    );
  }
  const app = await startApp(config, role, log);
  log.info(
    {
      role,
      url: app.url ?? app.healthUrl,
      ...(app.url ? { ops: `${app.url}/ops`, metrics: `${app.url}/metrics` } : {}),
      ...(app.temporal?.uiUrl ? { temporalUi: app.temporal.uiUrl } : {}),
    },
    'started',
  );
  let stopping: number | undefined;
  const shutdown = async (why: string) => {
    if (stopping !== undefined) {
      // the same signal twice at once (from the terminal to the process group, and passed
      // on by `npm start`) is one request to stop; a second one later means "now"
      if (Date.now() - stopping < 1000) return;
      log.warn({ why }, 'stopping at once');
      process.exit(1);
    }
    stopping = Date.now();
    log.info({ why }, 'stopping: finishing requests in flight');
    setTimeout(() => {
      log.error('stop took too long; exiting');
      process.exit(1);
    }, STOP_LIMIT_MS).unref();
    await app.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // started by `npm start` (scripts/start.mjs): if that process is killed outright, stop too
  if (process.env.EDITOR_PLATFORM_STOP_WITH_PARENT === '1') {
    const parent = process.ppid;
    const orphaned = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(orphaned);
      void shutdown('parent process gone');
    }, 1000);
    orphaned.unref();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? `start failed: ${err.message}` : err);
  process.exit(1);
});
