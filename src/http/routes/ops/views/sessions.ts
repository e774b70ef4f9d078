import type { OpsSessionRow } from '#projections/ops-sessions';
import { age, html, time } from './html.ts';
import { actionForm, type Notice, notice, type PageContext, page } from './layout.ts';

const ENDED: Record<string, string> = {
  logged_out: 'logged out',
  ended_by_viewer: 'ended from this page',
};

/**
 * The viewer's sessions (the operator's, or their label's admins'): when each was
 * opened, until when it runs, and how it ended; an open one can be ended here, which
 * logs out whatever browser holds it.
 */
export function sessionsPage(ctx: PageContext, rows: OpsSessionRow[], query: Notice): string {
  const now = Date.now();
  const state = (r: OpsSessionRow) =>
    r.ended_at
      ? `ended ${time(r.ended_at)} (${ENDED[r.end_reason ?? ''] ?? 'ended'})`
      : r.expires_at.getTime() <= now
        ? `expired ${time(r.expires_at)}`
        : `open, ${age((r.expires_at.getTime() - now) / 1000)} left`;
  return page(
    ctx,
    'Sessions',
    html`<h1>Sessions</h1>
    ${notice(query)}
    <p class="muted">Every log-in to this page with ${ctx.session.viewer.kind === 'operator' ? 'the operator key' : "your label's admin key"} in the last seven days. Ending a session logs out the browser that holds it.</p>
    <table class="sessions">
      <thead><tr><th>Opened</th><th>State</th><th></th></tr></thead>
      <tbody>${rows.map(
        (r) => html`<tr data-session="${r.session_id}">
          <td>${time(r.started_at)} <span class="muted">(${age((now - r.started_at.getTime()) / 1000)} ago)</span></td>
          <td>${state(r)}${r.session_id === ctx.session.sessionId ? html` <span class="badge ready">this browser</span>` : ''}</td>
          <td>${
            !r.ended_at && r.expires_at.getTime() > now
              ? actionForm(ctx.session, `/ops/sessions/${r.session_id}/end`, 'End session', '', {
                  danger: true,
                })
              : ''
          }</td>
        </tr>`,
      )}</tbody>
    </table>`,
  );
}
