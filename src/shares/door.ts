/**
 * The one door a label's requests pass: each is charged to its label and its cost class
 * before its body is read. A label has a share per class (how many of its requests of
 * that class run at once, how many more may wait); past it the request is refused with
 * the class named, so a label's flood waits in its own line and never in another
 * label's. Pure bookkeeping: no clock but the wait's deadline, no I/O.
 */
export const COST_CLASSES = ['read', 'heavy_read', 'write', 'upload', 'drawing'] as const;
export type CostClass = (typeof COST_CLASSES)[number];

export interface Share {
  /** a label's requests of the class running at once */
  running: number;
  /** and waiting for one of those places; past both the request is refused */
  waiting: number;
}
export type Shares = Record<CostClass, Share>;

/** The shares a label has unless its own are set (docs/design-notes.md, "Fair shares"). */
// What bounds a label's cost is how many run; a waiting request is a parked socket, so
// the lines are long enough for what a client racing 50 at once sends, and the wait's
// deadline bounds them in time.
export const DEFAULT_SHARES: Shares = {
  // an order, a SKU, a setting: a read of one row or one folded stream
  read: { running: 32, waiting: 2048 },
  // answers whose cost grows with what the label holds: lists, feeds, histories,
  // audit proofs and bundles, print files and press-run sheets streamed
  heavy_read: { running: 4, waiting: 256 },
  // commands: an append or a few, and the checks before it
  write: { running: 8, waiting: 256 },
  // bodies over 1 MiB or streamed to disk: images, data sets, projects, imports. A
  // label's shoppers save their designs here too: a busy shop has several at once
  upload: { running: 8, waiting: 32 },
  // work sent to an image process while the client waits: previews, mockups, proof
  // pages, packing slips (the image processes take each label's jobs in turn besides)
  drawing: { running: 4, waiting: 128 },
};

/** A request past its label's share of a class (answered 429 with Retry-After). */
export class OverShare extends Error {
  constructor(
    readonly costClass: CostClass,
    readonly share: Share,
    /** whether it waited its whole deadline (else the waiting places were all taken) */
    readonly timedOut: boolean,
  ) {
    super(
      timedOut
        ? `this label's ${costClass} requests were all busy for as long as one may wait`
        : `this label has ${share.running} ${costClass} requests running and ${share.waiting} waiting already`,
    );
  }
}

interface Line {
  labelId: string;
  costClass: CostClass;
  running: number;
  waiting: { admit: () => void }[];
}

export interface DoorOptions {
  shares: Shares;
  /** the longest a request waits for a place, ms */
  waitMs: number;
  /** a label's factor on every share (the operator raises one label's; 1 by default) */
  factorOf?: (labelId: string) => number;
  /** how many processes share the deployment's shares (each takes its part); 1 by default */
  processes?: () => number;
}

/** Leaves the door: the place goes to the next one waiting. Calling it again does nothing. */
export type Leave = () => void;

export class LabelDoor {
  private readonly lines = new Map<string, Line>();

  constructor(private readonly options: DoorOptions) {}

  /** This process's part of a label's share of a class: at least one place to run. */
  shareOf(labelId: string, costClass: CostClass): Share {
    const base = this.options.shares[costClass];
    const factor = this.options.factorOf?.(labelId) ?? 1;
    const processes = Math.max(1, this.options.processes?.() ?? 1);
    return {
      running: Math.max(1, Math.floor((base.running * factor) / processes)),
      waiting: Math.floor((base.waiting * factor) / processes),
    };
  }

  /**
   * A place for one request of the label in the class: at once while the label has
   * fewer running than its share, else after those waiting before it. Throws OverShare
   * when every waiting place is taken or the wait outlasts `waitMs`; rejects with the
   * signal's reason when the client goes away while waiting.
   */
  async enter(labelId: string, costClass: CostClass, signal?: AbortSignal): Promise<Leave> {
    const key = `${costClass}\u0000${labelId}`;
    const share = this.shareOf(labelId, costClass);
    let line = this.lines.get(key);
    if (!line) {
      line = { labelId, costClass, running: 0, waiting: [] };
      this.lines.set(key, line);
    }
    if (line.running < share.running && line.waiting.length === 0) {
      line.running++;
      return this.leaver(key, line);
    }
    if (line.waiting.length >= share.waiting) throw new OverShare(costClass, share, false);
    signal?.throwIfAborted();
    const queue = line;
    await new Promise<void>((resolve, reject) => {
      const place = {
        admit: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', gone);
          resolve();
        },
      };
      const drop = () => {
        const i = queue.waiting.indexOf(place);
        if (i >= 0) queue.waiting.splice(i, 1);
        this.forgetIfIdle(key, queue);
      };
      const timer = setTimeout(() => {
        drop();
        signal?.removeEventListener('abort', gone);
        reject(new OverShare(costClass, share, true));
      }, this.options.waitMs);
      const gone = () => {
        clearTimeout(timer);
        drop();
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', gone, { once: true });
      queue.waiting.push(place);
    });
    return this.leaver(key, queue);
  }

  /** Requests running and waiting per class, summed over labels (for /metrics). */
  load(): Record<CostClass, { running: number; waiting: number; labels: number }> {
    const out = Object.fromEntries(
      COST_CLASSES.map((c) => [c, { running: 0, waiting: 0, labels: 0 }]),
    ) as Record<CostClass, { running: number; waiting: number; labels: number }>;
    for (const [key, line] of this.lines) {
      const c = out[key.slice(0, key.indexOf('\u0000')) as CostClass];
      c.running += line.running;
      c.waiting += line.waiting.length;
      c.labels += 1;
    }
    return out;
  }

  private leaver(key: string, line: Line): Leave {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      // the place passes straight to the next one waiting (`running` stays as it is),
      // unless the share shrank meanwhile (another process came up) and more run than it
      const over = line.running > this.shareOf(line.labelId, line.costClass).running;
      const next = over ? undefined : line.waiting.shift();
      if (next) next.admit();
      else {
        line.running--;
        this.forgetIfIdle(key, line);
      }
    };
  }

  private forgetIfIdle(key: string, line: Line): void {
    if (line.running === 0 && line.waiting.length === 0 && this.lines.get(key) === line)
      this.lines.delete(key);
  }
}

/**
 * The shares a deployment gives each label: the defaults, with classes given as
 * `class=running/waiting` pairs, comma-separated (`heavy_read=8/64,upload=4/8`).
 * Throws with what is wrong (the setting is checked at start).
 */
export function parseShares(setting: string | undefined): Shares {
  const shares: Shares = { ...DEFAULT_SHARES };
  for (const part of (setting ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([a-z_]+)=(\d{1,6})\/(\d{1,6})$/.exec(part);
    if (!m) throw new Error(`"${part.slice(0, 40)}" is not class=running/waiting`);
    const [, name, running, waiting] = m;
    if (!(COST_CLASSES as readonly string[]).includes(name as string))
      throw new Error(`no cost class "${name}" (one of ${COST_CLASSES.join(', ')})`);
    if (Number(running) < 1) throw new Error(`${name} needs at least one request running`);
    shares[name as CostClass] = { running: Number(running), waiting: Number(waiting) };
  }
  return shares;
}
