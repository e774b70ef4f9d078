import type { z } from 'zod';
import type { Environment } from '../domain/label/events.ts';
import { findBadText } from '../domain/shared/text.ts';
import { readBounded } from '../outgoing/bounded-body.ts';
import { forgotPasswordResultSchema, partnerErrorSchema, partnerUserSchema } from './responses.ts';

export type CallbackKind = 'signup' | 'login' | 'forgot-password';

const SCHEMAS = {
  signup: partnerUserSchema,
  login: partnerUserSchema,
  'forgot-password': forgotPasswordResultSchema,
} as const;

export type PartnerOutcome<K extends CallbackKind> =
  | { ok: true; value: z.infer<(typeof SCHEMAS)[K]> }
  | { ok: false; failure: 'rejected'; status: number; message?: string; code?: string }
  | { ok: false; failure: 'unavailable'; status?: number; message?: string; code?: string }
  | { ok: false; failure: 'timeout' | 'invalid_response' };

/** A label's partner-hosted callbacks for its active environment: base URL and key. */
export type CallbackTarget = { url: string; apiKey: string; environment: Environment };

/** What the client logs through: method, URL, status, time; never the key or the body. */
export interface PartnerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Calls one of a label's partner-hosted callbacks: POST `{url}/{kind}` with the label's
 * callback key, redirects not followed, a time limit. Success is 201 with a body of the
 * right shape and nothing else; a 4xx is the partner saying no, carrying its message.
 * Only forgot-password is retried, once, and only when the connection itself failed:
 * a repeated signup could create two accounts.
 */
export async function callPartner<K extends CallbackKind>(
  target: CallbackTarget,
  kind: K,
  body: Record<string, unknown>,
  options: { timeoutMs: number; log: PartnerLog },
): Promise<PartnerOutcome<K>> {
  const url = `${target.url.replace(/\/+$/, '')}/${kind}`;
  const attempts = kind === 'forgot-password' ? 2 : 1;
  for (let attempt = 1; ; attempt++) {
    const began = Date.now();
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: {
          'x-api-key': target.apiKey,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (err) {
      const timedOut =
        (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
      options.log.warn(
        { partner: { kind, url, attempt, ms: Date.now() - began, error: (err as Error).name } },
        'partner call failed',
      );
      if (timedOut) return { ok: false, failure: 'timeout' };
      if (attempt < attempts) continue;
      return { ok: false, failure: 'unavailable' };
    }
    // an answer past the limit is no usable answer (the connection is closed at the limit)
    const answer = await readBounded(res).catch(() => undefined);
    const text = answer && !answer.truncated ? answer.text : undefined;
    options.log.info(
      { partner: { kind, url, attempt, status: res.status, ms: Date.now() - began } },
      'partner answered',
    );
    const json = parseJson(text);
    if (res.status === 201) {
      const parsed = SCHEMAS[kind].safeParse(json);
      // text the stores cannot hold (NUL, lone surrogates) is no usable answer either
      return parsed.success && !findBadText(parsed.data)
        ? { ok: true, value: parsed.data as z.infer<(typeof SCHEMAS)[K]> }
        : { ok: false, failure: 'invalid_response' };
    }
    const error = partnerErrorSchema.safeParse(json);
    const details = error.success ? { message: error.data.message, code: error.data.code } : {};
    if (res.status >= 400 && res.status < 500)
      return { ok: false, failure: 'rejected', status: res.status, ...details };
    if (res.status >= 500)
      return { ok: false, failure: 'unavailable', status: res.status, ...details };
    // 2xx other than 201, 3xx (redirects are not followed): not an answer we can use
    return { ok: false, failure: 'invalid_response' };
  }
}
