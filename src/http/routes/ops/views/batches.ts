import type { BatchRow } from '#projections/batches';
import type { batchView } from '../../../../app/batches.ts';
import { html, time } from './html.ts';
import { type Notice, notice, type PageContext, page } from './layout.ts';

const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
export const batchPath = (labelId: string, batchId: string) =>
  `/ops/labels/${labelId}/batches/${batchId}`;

/** Press runs, newest first: status, sheets against the lower bound, utilisation. */
export function batchesPage(ctx: PageContext, rows: BatchRow[], query: Notice): string {
  return page(
    ctx,
    'Press runs',
    html`<h1>Press runs</h1>
    ${notice(query)}
    ${
      rows.length
        ? html`<table class="batches">
      <thead><tr><th>Batch</th><th>Status</th><th>Mode, media</th><th>Items</th><th>Sheets <span class="muted">(lower bound)</span></th><th>Utilisation</th><th>Opened <span class="muted">(UTC)</span></th></tr></thead>
      <tbody>${rows.map(
        (b) => html`<tr data-batch="${b.batch_id}">
          <td><a href="${batchPath(b.label_id, b.batch_id)}">${b.code}</a> <span class="muted">${b.source}</span></td>
          <td><span class="badge ${b.status === 'failed' ? 'failed' : b.status === 'imposed' || b.status === 'printed' ? 'ready' : ''}">${b.status}</span></td>
          <td>${b.mode}, ${b.media.preset ?? `${b.media.widthMm} x ${b.media.heightMm} mm`} ${b.media.kind}</td>
          <td>${b.items}${b.refused ? html` <span class="muted">(${b.refused} refused)</span>` : ''}</td>
          <td>${b.sheet_count ?? '–'} <span class="muted">(${b.lower_bound ?? '–'})</span></td>
          <td>${pct(b.utilisation)}</td>
          <td>${time(b.requested_at)}</td>
        </tr>`,
      )}</tbody></table>`
        : html`<p class="muted">No press run yet.</p>`
    }`,
  );
}

/** One press run: its facts, each sheet with a preview and the items on it, replays. */
export function batchPage(
  ctx: PageContext,
  labelId: string,
  b: ReturnType<typeof batchView>,
  query: Notice,
): string {
  const base = batchPath(labelId, b.batchId);
  const itemOf = new Map(b.items.map((i) => [i.orderItemId, i]));
  return page(
    ctx,
    `Press run ${b.batchId.slice(0, 8)}`,
    html`<h1>Press run <code>${b.batchId}</code></h1>
    ${notice(query)}
    <p><span class="badge">${b.status}</span> ${b.mode} on ${b.media.preset ?? ''} ${b.media.kind} ${b.media.widthMm} x ${b.media.heightMm} mm,
      ${b.items.length} item(s), ${b.sheetCount ?? '–'} sheet(s) against a lower bound of ${b.lowerBound ?? '–'},
      ${pct(b.utilisation)} used overall${b.heuristic ? html` <span class="muted">(${b.heuristic})</span>` : ''}.</p>
    ${b.failure ? html`<p class="error-text">Failed: ${b.failure}</p>` : ''}
    ${b.refused.length ? html`<p>Refused: ${b.refused.map((r) => `${r.orderItemId.slice(0, 8)} (${r.reason})`).join('; ')}</p>` : ''}
    ${
      b.sheets.length
        ? html`<p><a href="${`${base}/job-sheet`}">Job sheet (PDF)</a> · <a href="${`${base}/ticket.xjdf`}">Job ticket (XJDF)</a>${b.hotFolder ? html` · in the hot folder at <code>${b.hotFolder.location}</code>` : ''}</p>`
        : ''
    }
    ${b.sheets.map(
      (s) => html`<section class="sheet" data-sheet="${s.n}">
        <h2>Sheet ${s.n} <span class="muted">${pct(s.utilisation)} used${s.printedAt ? `, printed ${time(new Date(s.printedAt))}` : ''}</span></h2>
        <div class="previews"><a href="${`${base}/sheets/${s.n}`}"><img loading="lazy" alt="${`sheet ${s.n}`}" src="${`${base}/sheets/${s.n}/preview`}"></a></div>
        <p class="small">${[...new Set(s.placements.map((p) => p.orderItemId))]
          .map((id) => {
            const i = itemOf.get(id);
            const n = s.placements.filter((p) => p.orderItemId === id).length;
            return i ? `${i.orderId} ${i.itemId} (${i.sku}) × ${n}` : id;
          })
          .join(' · ')}</p>
      </section>`,
    )}
    ${
      b.replays.length
        ? html`<h2>Replays</h2><ul>${b.replays.map(
            (r) =>
              html`<li>${time(new Date(r.requestedAt))}: ${
                r.at === null
                  ? 'running'
                  : r.matches
                    ? 'every sheet the same, byte for byte'
                    : html`<span class="error-text">differs: ${r.sheets
                        .filter((x) => x.expected !== x.actual)
                        .map((x) => `sheet ${x.n}`)
                        .join(', ')}</span>`
              }</li>`,
          )}</ul>`
        : ''
    }`,
  );
}
