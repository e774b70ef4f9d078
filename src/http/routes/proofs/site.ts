import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { decideByLink, proofForLink, proofMockup, proofPage } from '../../../app/approvals.ts';
import {
  formToken,
  formTokenMatches,
  type ProofLink,
  verifyProofToken,
} from '../../../app/proof-links.ts';
import { type Pin, pinSchema } from '../../../domain/order/approval-events.ts';
import type { HttpDeps } from '../../deps.ts';
import { acceptForms, fromAnotherSite } from '../../form-body.ts';
import { sendImage } from '../../image-reply.ts';
import { HttpProblem } from '../../problem.ts';
import { proofPageView } from './view.ts';

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // the token is in the address: no other site may see it as a referrer (the page's own
  // posts still carry its Origin, which fromAnotherSite checks)
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

const tokenParams = z.object({ token: z.string().min(1).max(600) }).strict();
const formBody = z
  .object({
    _csrf: z.string().max(200).optional(),
    decision: z.enum(['approve', 'reject']),
    comment: z.string().max(2000).optional(),
    pins: z.string().max(20_000).optional(),
  })
  .strict();

/**
 * Pins typed into the form without JavaScript, one a line: `page; x mm; y mm; text`.
 * A line that cannot be read is a 400 naming it, nothing recorded.
 */
export function parsePins(text: string | undefined): Pin[] {
  const pins: Pin[] = [];
  for (const [n, line] of (text ?? '').split(/\r?\n/).entries()) {
    if (!line.trim()) continue;
    const [page, x, y, ...rest] = line.split(';').map((s) => s.trim());
    const pin = pinSchema.safeParse({
      page: Number(page),
      xMm: Number(x),
      yMm: Number(y),
      text: rest.join(';').trim(),
    });
    if (!pin.success)
      throw new HttpProblem(
        400,
        'invalid_pin',
        `pin line ${n + 1} is not "page; x mm; y mm; text" (${line.slice(0, 80)})`,
      );
    pins.push(pin.data);
  }
  if (pins.length > 50) throw new HttpProblem(400, 'invalid_pin', 'at most 50 pins');
  return pins;
}

/**
 * The approvers' pages, /proofs/{token}: no account, no key, no JavaScript. The token is
 * the approver's signed link to one item's proof version; a tampered or expired one gets
 * a 4xx and records nothing. The forms carry a field only a page served for the token has,
 * and a post from another site is refused (its Origin or Sec-Fetch-Site says so).
 */
export const proofSite: FastifyPluginAsyncZod<{ deps: HttpDeps }> = async (app, { deps }) => {
  const secret = deps.config.editorTokenSecret;
  acceptForms(app);
  app.addHook('onSend', async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
  });
  const linkOf = (token: string): ProofLink => {
    const v = verifyProofToken(secret, token);
    if (!v.ok)
      throw v.why === 'expired'
        ? new HttpProblem(
            410,
            'link_expired',
            'this proof link has expired: ask the shop for a new one',
          )
        : new HttpProblem(404, 'proof_not_found', 'no such proof link');
    return v.link;
  };
  const hidden = { hide: true } as const;
  // a valid link names its label, which the door charges (a forged one is answered 404 by
  // its route, at the price of a MAC)
  app.addHook('onRequest', async (request) => {
    const token = (request.params as { token?: unknown }).token;
    if (typeof token !== 'string') return;
    const v = verifyProofToken(secret, token);
    if (v.ok) request.chargedTo = v.link.labelId;
  });

  app.get(
    '/proofs/:token',
    { schema: { ...hidden, params: tokenParams } },
    async (request, reply) => {
      const { token } = request.params;
      const link = linkOf(token);
      const shown = await proofForLink(deps.app, link);
      const done = (request.query as Record<string, unknown>).done;
      return reply.type('text/html; charset=utf-8').send(
        proofPageView({
          ...shown,
          token,
          csrf: formToken(secret, token),
          notice: done === 'approve' || done === 'reject' ? done : undefined,
        }).toString(),
      );
    },
  );

  app.get(
    '/proofs/:token/pages/:page',
    {
      schema: {
        ...hidden,
        params: tokenParams.extend({ page: z.coerce.number().int().min(1).max(10_000) }),
      },
    },
    async (request, reply) => {
      const link = linkOf(request.params.token);
      const png = await proofPage(
        deps.app,
        link.labelId,
        link.orderItemId,
        link.version,
        request.params.page,
      );
      return sendImage(reply, 'image/png', png).header('cache-control', 'no-store');
    },
  );

  app.get(
    '/proofs/:token/mockups/:sha256',
    {
      schema: {
        ...hidden,
        params: tokenParams.extend({ sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
      },
    },
    async (request, reply) => {
      const link = linkOf(request.params.token);
      const image = await proofMockup(deps.app, link, request.params.sha256);
      return sendImage(reply, image.contentType, image.bytes).header('cache-control', 'no-store');
    },
  );

  app.post(
    '/proofs/:token',
    { schema: { ...hidden, params: tokenParams, body: formBody } },
    async (request, reply) => {
      const { token } = request.params;
      const link = linkOf(token);
      if (fromAnotherSite(request))
        throw new HttpProblem(403, 'cross_site', 'a decision is made on its own page only');
      if (!formTokenMatches(secret, token, request.body._csrf))
        throw new HttpProblem(403, 'csrf_mismatch', 'send the decision from its proof page');
      const { decision, comment } = request.body;
      await decideByLink(deps.app, link, {
        decision,
        ...(comment?.trim() ? { comment: comment.trim() } : {}),
        pins: decision === 'reject' ? parsePins(request.body.pins) : [],
      });
      return reply.redirect(`/proofs/${token}?done=${decision}`, 303);
    },
  );
};
