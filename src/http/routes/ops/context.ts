import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { labelList } from '../../../app/labels.ts';
import type { OpsSession } from '../../../app/ops-sessions.ts';
import { DomainError } from '../../../domain/shared/decider.ts';
import type { HttpDeps } from '../../deps.ts';
import type { PageContext } from './views/layout.ts';

declare module 'fastify' {
  interface FastifyRequest {
    opsSession: OpsSession | null;
  }
}

/** The session of a request of the private pages (set by their onRequest hook). */
export function sessionOf(request: FastifyRequest): OpsSession {
  if (!request.opsSession) throw new Error('ops route without a session');
  return request.opsSession;
}

/**
 * The label a request may look at: any for the operator, only its own for a label
 * admin (another label's is not found, as everywhere in the API).
 */
export function labelScope(session: OpsSession, labelId: string): string {
  if (session.viewer.kind === 'admin' && session.viewer.labelId !== labelId)
    throw new DomainError('not_found', 'order not found', 'order_not_found');
  return labelId;
}

export async function pageContext(
  deps: HttpDeps,
  session: OpsSession,
  section: PageContext['section'],
): Promise<PageContext> {
  if (session.viewer.kind === 'operator') return { session, viewerName: 'Operator', section };
  const [label] = await labelList(deps.app, session.viewer.labelId);
  return { session, viewerName: label ? `Admin of ${label.name}` : 'Label admin', section };
}

/** What a page says after an action: a fixed text per outcome code, never free text. */
export const noticeFields = {
  done: z
    .string()
    .regex(/^[a-z_]{1,64}$/)
    .optional(),
  error: z
    .string()
    .regex(/^[a-z_]{1,64}$/)
    .optional(),
};

const MESSAGES: Record<string, string> = {
  retried: 'The failed items are being rendered again.',
  cancelled: 'The order is cancelled: its workflow stops and no further print file is made.',
  replay_requested: 'A replay is under way: the print files are rendered again and compared.',
  barcode_set: 'The barcode is set; the print file is being made again.',
  held: 'The order is on hold: nothing of it is printed or shipped until it is released.',
  released: 'The hold is released.',
  reprint_requested:
    'The item goes back to the press: its print file is rendered again and checked first.',
  approval_waived: 'The item goes to production without its approvers; the waiver is on record.',
  proof_expired: 'The proof expired: the item has to be revised first.',
  order_on_hold: 'The order is on hold: release it first.',
  stage_conflict: 'The item is not at a stage where that can be done.',
  parked_retried: 'The parked events were taken again.',
  session_ended: 'The session is ended: the browser that held it must log in again.',
  nothing_to_retry: 'No item of the order has failed: there is nothing to retry.',
  order_in_progress: 'The order is still rendering; retry once it has finished.',
  order_cancelled: 'The order is cancelled.',
  no_print_file: 'The order has no print file yet.',
  invalid: 'That value is not valid.',
};

const messageOf = (code: string | undefined) =>
  code === undefined ? undefined : (MESSAGES[code] ?? code.replaceAll('_', ' '));

/** The notice of a page's query, as text. */
export const noticeOf = (q: { done?: string | undefined; error?: string | undefined }) => ({
  done: messageOf(q.done),
  error: messageOf(q.error),
});

/** An ops query: empty form fields count as absent. */
export const formField = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());
