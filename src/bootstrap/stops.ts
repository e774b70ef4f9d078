import type { Logger } from 'pino';

/** What a start step started, to be stopped in reverse order. */
export class Stops {
  private readonly stops: (() => Promise<unknown>)[] = [];
  constructor(private readonly log: Logger) {}

  add(stop: () => Promise<unknown>): void {
    this.stops.push(stop);
  }

  async run(): Promise<void> {
    for (const s of this.stops.splice(0).reverse()) {
      await s().catch((err) => this.log.error({ err }, 'stop failed'));
    }
  }
}
