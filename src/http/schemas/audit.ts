import { z } from 'zod';
import { count, instant } from './common.ts';

const hash = z.string().regex(/^[0-9a-f]{64}$/);
const example = {
  treeSize: 1042,
  rootHash: 'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  timestamp: '2026-11-27T08:00:00.000Z',
  keyId: '3f1c9a0b7d2e4f61',
  signature: 'bXlzaWduYXR1cmU...',
};

export const treeHeadSchema = z
  .object({
    treeSize: count,
    rootHash: hash,
    timestamp: instant,
    keyId: z.string().describe('the key that signed it (GET /api/audit/public-keys)'),
    signature: z
      .string()
      .describe(
        'Ed25519, base64, over "editor-platform tree head v1\\n<treeSize>\\n<rootHash>\\n<timestamp>"',
      ),
  })
  .meta({ id: 'SignedTreeHead', example });

export const publicKeysSchema = z
  .object({
    keys: z.array(
      z.object({
        keyId: z.string(),
        algorithm: z.literal('Ed25519'),
        publicKey: z.string().describe('SubjectPublicKeyInfo, DER, base64'),
        firstUsedAt: instant,
      }),
    ),
  })
  .meta({
    id: 'AuditPublicKeys',
    example: {
      keys: [
        {
          keyId: '3f1c9a0b7d2e4f61',
          algorithm: 'Ed25519',
          publicKey: 'MCowBQYDK2VwAyEA...',
          firstUsedAt: '2026-11-27T08:00:00.000Z',
        },
      ],
    },
  });

export const inclusionQuery = z
  .object({
    eventId: z.uuid({ message: 'must be a UUID' }),
    treeSize: z.coerce.number().int().min(1).max(2_147_483_647).optional(),
  })
  .strict();

export const inclusionSchema = z
  .object({ eventId: z.uuid(), leafIndex: count, treeSize: count, proof: z.array(hash) })
  .meta({
    id: 'InclusionProof',
    example: {
      eventId: '0b6f3c1e-2d4a-4f5b-8c9d-7e6f5a4b3c2d',
      leafIndex: 17,
      treeSize: 1042,
      proof: [example.rootHash],
    },
  });

export const consistencyQuery = z
  .object({
    from: z.coerce.number().int().min(1).max(2_147_483_647),
    to: z.coerce.number().int().min(1).max(2_147_483_647),
  })
  .strict();

export const consistencySchema = z.object({ from: count, to: count, proof: z.array(hash) }).meta({
  id: 'ConsistencyProof',
  example: { from: 1000, to: 1042, proof: [example.rootHash] },
});

export const auditBundleSchema = z
  .object({
    orderId: z.string(),
    treeHead: treeHeadSchema,
    events: z.array(
      z.object({
        leafIndex: count,
        event: z.object({
          stream: z.string(),
          revision: z.string(),
          id: z.uuid(),
          type: z.string(),
          schemaVersion: count,
          data: z.unknown(),
          metadata: z.unknown(),
        }),
        inclusionProof: z.array(hash),
      }),
    ),
  })
  .meta({
    id: 'AuditBundle',
    example: {
      orderId: 'SHOP-100234',
      treeHead: example,
      events: [
        {
          leafIndex: 17,
          event: {
            stream: 'Order-…',
            revision: '0',
            id: '0b6f3c1e-2d4a-4f5b-8c9d-7e6f5a4b3c2d',
            type: 'OrderReceived',
            schemaVersion: 6,
            data: {},
            metadata: { actor: 'integration:…' },
          },
          inclusionProof: [example.rootHash],
        },
      ],
    },
  });
