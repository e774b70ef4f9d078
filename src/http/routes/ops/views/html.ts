/** Markup that is already safe: what `html` returns, and nothing else. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

/**
 * A template of markup in which every interpolated value is escaped, unless it is markup
 * made by `html` itself: text from an order, an error or an event can never become a tag.
 */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** A URL path with its query, each value encoded. */
export function href(path: string, query: Record<string, string | number | undefined> = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** A time as operators read it: UTC, to the second. */
export const time = (d: Date | string | null | undefined): string =>
  d
    ? new Date(d)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')
    : '';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A time to read at a glance in a list, in UTC: "14:05" today, "Nov 23, 09:12" this year,
 * "2025-11-23" before; the whole time is in the element's title.
 */
export function shortTime(d: Date | string | null | undefined, now = new Date()): Html | string {
  if (!d) return '';
  const t = new Date(d);
  const iso = t.toISOString();
  const hm = iso.slice(11, 16);
  const text =
    iso.slice(0, 10) === now.toISOString().slice(0, 10)
      ? hm
      : t.getUTCFullYear() === now.getUTCFullYear()
        ? `${MONTHS[t.getUTCMonth()]} ${t.getUTCDate()}, ${hm}`
        : iso.slice(0, 10);
  return html`<time datetime="${iso}" title="${time(t)}">${text}</time>`;
}

/** A duration in its largest units: "3 d 4 h", "12 min", "40 s". */
export function age(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s >= 86_400) return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min`;
  return `${s} s`;
}
