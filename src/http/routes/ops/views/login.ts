import { html } from './html.ts';
import { page } from './layout.ts';

/**
 * The one form an anonymous visitor sees: an API key in, a session cookie out. It carries
 * the login page's own token, so only this page, not another site's, can log anyone in.
 */
export function loginPage(loginToken: string, error?: string): string {
  return page(
    undefined,
    'Log in',
    html`<div class="login">
      <h1>Fulfillment operations</h1>
      <p class="muted">Log in with the operator key, or with a label's admin key to see that label's orders. The key is exchanged for a session cookie; it is not kept in the browser.</p>
      ${error ? html`<p class="notice error" role="alert">${error}</p>` : ''}
      <form method="post" action="/ops/login">
        <input type="hidden" name="_login" value="${loginToken}">
        <label for="key">API key</label>
        <input id="key" name="key" type="password" autocomplete="off" required maxlength="200">
        <button type="submit">Log in</button>
      </form>
    </div>`,
    false,
  );
}
