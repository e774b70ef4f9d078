import { startApp } from './app/container.ts';
import { createLogger } from './app/logger.ts';
import { ConfigError, loadConfig, type Role } from './config.ts';

const ROLES: Role[] = ['api', 'worker', 'projector', 'all'];

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
  if (generatedOperatorKey) {
    // printed once, to the terminal only, never to the log
    process.stderr.write(
      `\nOperator API key (stored in ${config.dataDir}/operator-api-key):\n  ${generatedOperatorKey}\n\n`,
    );
  }
  const app = await startApp(config, role, log);
  log.info({ role, url: app.url }, 'started');
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    await app.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error(err instanceof Error ? `start failed: ${err.message}` : err);
  process.exit(1);
});
