/**
 * The value of one sample in a Prometheus text exposition: the metric `name` whose
 * labels include `labels`; the sum when several samples match, 0 when none does.
 */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}) {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [
        l[1],
        l[2],
      ]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[4]);
  }
  return sum;
}
