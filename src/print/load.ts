/**
 * How busy this process is rendering print files: previews (a convenience) wait until no
 * print file has been rendered for a moment, so they never take a core a print file
 * needs (a low thread priority alone does not keep them off a core's other hyperthread).
 */
let active = 0;
let lastEnd = 0;
const waiting = new Set<() => void>();

export const renderLoad = {
  begin(): void {
    active++;
  },
  end(): void {
    active = Math.max(0, active - 1);
    lastEnd = Date.now();
    if (active === 0) for (const w of waiting) w();
  },
  /**
   * Resolves once no render has run for `quietMs`, or after `maxWaitMs` at the latest
   * (a worker that never stops rendering still draws its previews, only later).
   */
  async idle(quietMs: number, maxWaitMs = 60_000): Promise<void> {
    const giveUpAt = Date.now() + maxWaitMs;
    for (;;) {
      if (Date.now() >= giveUpAt) return;
      const quiet = Date.now() - lastEnd;
      if (active === 0 && quiet >= quietMs) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          waiting.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(
          done,
          Math.min(giveUpAt - Date.now(), active === 0 ? quietMs - quiet : quietMs),
        );
        waiting.add(done);
      });
    }
  },
};
