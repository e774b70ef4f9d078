import type { SubscriptionView } from '../../../../app/subscriptions.ts';
import { html, time } from './html.ts';
import { actionForm, type Notice, notice, type PageContext, page } from './layout.ts';

/** Each projection and reactor: how far behind, failing or not, and its parked events. */
export function projectionsPage(ctx: PageContext, subs: SubscriptionView[], query: Notice): string {
  const parked = subs.filter((s) => s.parked > 0);
  return page(
    ctx,
    'Projections',
    html`<h1>Projections and reactors</h1>
    ${notice(query)}
    <table>
      <thead><tr><th>Name</th><th>Kind</th><th class="num">Events behind</th><th class="num">Lag (s)</th><th>Runs here</th><th>Failing</th><th class="num">Parked</th></tr></thead>
      <tbody>${subs.map(
        (s) => html`<tr data-subscription="${s.name}">
        <td>${s.name}</td><td>${s.kind}</td><td class="num">${s.behind}</td>
        <td class="num">${s.lagSeconds.toFixed(1)}</td><td>${s.running ? 'yes' : 'no'}</td>
        <td class="error-text">${s.failing ? `${s.failing.error} (since ${time(s.failing.since)})` : ''}</td>
        <td class="num">${s.parked}</td></tr>`,
      )}</tbody>
    </table>
    ${parked.map(
      (s) => html`<h2>Parked in ${s.name}</h2>
      ${actionForm(ctx.session, `/ops/projections/${encodeURIComponent(s.name)}/retry`, 'Retry all')}
      <table><thead><tr><th>Event</th><th>Stream</th><th>Error</th><th class="num">Tries</th><th>Parked</th><th></th></tr></thead>
      <tbody>${s.parkedEvents.map(
        (
          p,
        ) => html`<tr><td>${p.type}<br><code>${p.eventId}</code></td><td><code>${p.streamId}</code></td>
        <td class="error-text">${p.error}</td><td class="num">${p.attempts}</td><td>${time(p.parkedAt)}</td>
        <td>${actionForm(ctx.session, `/ops/projections/${encodeURIComponent(s.name)}/retry`, 'Retry', html`<input type="hidden" name="eventId" value="${p.eventId}">`)}</td></tr>`,
      )}</tbody></table>`,
    )}`,
  );
}
