import { WEBHOOK_EVENT_TYPES } from '../../domain/shop-integration/events.ts';
import { MESSAGE_SCHEMAS } from '../../webhooks/message-schemas.ts';

/** The Standard Webhooks headers every delivery carries. */
const SIGNATURE_HEADERS = [
  {
    name: 'webhook-id',
    description:
      "the message's id (msg_...): the same in every re-delivery, so a receiver can skip one it has",
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    description:
      'when this attempt was signed, in seconds since 1970 (refuse one too far from now)',
    schema: { type: 'integer', minimum: 0 },
  },
  {
    name: 'webhook-signature',
    description:
      'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">, one per secret that signs (two during a rotation), space-separated',
    schema: { type: 'string' },
  },
];

const operationId = (type: string) =>
  `on${type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}`;

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per order message type, each a POST to
 * the shop's endpoint with the message as its JSON body and the three Standard Webhooks
 * headers, so a receiver can type every payload and check every signature.
 */
export function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => {
      const schema = MESSAGE_SCHEMAS[type].body;
      const id = schema.meta()?.id as string;
      return [
        type,
        {
          post: {
            operationId: operationId(type),
            tags: ['Webhooks'],
            summary: `${type}: ${schema.meta()?.description as string}`,
            parameters: SIGNATURE_HEADERS.map((h) => ({ ...h, in: 'header', required: true })),
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: `#/components/schemas/${id}` } } },
            },
            responses: {
              '2XX': {
                description:
                  'taken; any other answer (or none within WEBHOOK_TIMEOUT_MS) is retried on the schedule, a 410 disables the endpoint',
              },
            },
          },
        },
      ];
    }),
  );
}
