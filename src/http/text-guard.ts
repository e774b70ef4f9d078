import type { FastifyRequest } from 'fastify';
import { findBadText } from '../domain/shared/text.ts';
import { HttpProblem } from './problem.ts';

/** preValidation hook: body, path parameters and query, before any route code sees them. */
export async function refuseBadText(request: FastifyRequest): Promise<void> {
  const places: [string, unknown][] = [
    ['params', request.params],
    ['query', request.query],
    ['', request.body],
  ];
  for (const [prefix, value] of places) {
    const found = findBadText(value, prefix ? [prefix] : []);
    if (found) {
      throw new HttpProblem(400, 'invalid_character', `${found.path} ${found.problem}`, [
        { path: found.path, message: found.problem },
      ]);
    }
  }
}
