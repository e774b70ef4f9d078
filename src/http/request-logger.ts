import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

type Log = (...args: unknown[]) => void;

/**
 * The per-request logger fastify asks for, made only when something is logged: pino
 * builds a child's bindings (redaction included) when it is created, which on a cached
 * read cost about a tenth of the request, and most requests log nothing at `warn`.
 */
class RequestLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): Logger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  private log(level: Level, args: unknown[]): void {
    if ((this.made ?? this.parent).isLevelEnabled(level)) (this.logger[level] as Log)(...args);
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }
  set level(level: string) {
    this.logger.level = level;
  }
  fatal(...args: unknown[]) {
    this.log('fatal', args);
  }
  error(...args: unknown[]) {
    this.log('error', args);
  }
  warn(...args: unknown[]) {
    this.log('warn', args);
  }
  info(...args: unknown[]) {
    this.log('info', args);
  }
  debug(...args: unknown[]) {
    this.log('debug', args);
  }
  trace(...args: unknown[]) {
    this.log('trace', args);
  }
  silent() {}
  child(bindings: Bindings, options?: ChildLoggerOptions) {
    return this.logger.child(bindings, options);
  }
}

export function requestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  // fastify's loggerInstance is the service's pino logger (server.ts)
  return new RequestLogger(parent as Logger, bindings, options) as unknown as FastifyBaseLogger;
}
