import type { FastifyRequest } from 'fastify';
import { verifyEditorToken } from '../app/editor-token.ts';
import { isActiveUser } from '../app/partner-users.ts';
import type { HttpDeps } from './deps.ts';
import { HttpProblem } from './problem.ts';

declare module 'fastify' {
  interface FastifyRequest {
    editorSession: { labelId: string; userRef: string } | null;
  }
}

/**
 * onRequest hook of the editor routes: `Authorization: Bearer <token>` from signup or
 * login, signed by this service, not expired, for a user that still exists.
 */
export function requireEditorSession(deps: HttpDeps) {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
    if (!token)
      throw new HttpProblem(
        401,
        'missing_token',
        'send the editor token as Authorization: Bearer <token>',
      );
    const session = verifyEditorToken(deps.config.editorTokenSecret, token);
    if (!session || !(await isActiveUser(deps.app.store, session.labelId, session.userRef))) {
      throw new HttpProblem(
        401,
        'invalid_token',
        'the editor token is invalid or expired; log in again',
      );
    }
    request.editorSession = { labelId: session.labelId, userRef: session.userRef };
  };
}

export function sessionOf(request: FastifyRequest) {
  if (!request.editorSession) throw new Error('route expects an editor session');
  return request.editorSession;
}
