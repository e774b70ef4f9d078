import type { FastifyReply } from 'fastify';

/**
 * Answers with an image that never changes under its URL (a preview or a mockup named by
 * its content or by the revisions it was drawn from): the client may keep it for good.
 */
export const sendImage = (reply: FastifyReply, contentType: string, bytes: Buffer) =>
  reply
    .type(contentType)
    .header('cache-control', 'private, max-age=31536000, immutable')
    .send(bytes as never); // a Buffer goes out as it is
