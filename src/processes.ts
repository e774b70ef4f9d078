/** Whether a process exists (one of another user counts: signalling it is merely refused). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `round` now (after a short first delay) and then every `intervalMs` after the
 * previous round ended; a failed round is reported and the next one comes as usual.
 */
export function every(
  intervalMs: number,
  round: () => Promise<unknown>,
  onError: (err: unknown) => void,
): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const next = () => {
    running = round()
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(next, intervalMs);
      });
  };
  timer = setTimeout(next, Math.min(intervalMs, 5_000));
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
