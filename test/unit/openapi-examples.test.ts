import { describe, expect, it } from 'vitest';
import { sampleOf } from '../../src/http/openapi/examples.ts';

describe('OpenAPI examples made from schemas', () => {
  it("keeps a schema's own example and fills required fields by type and format", () => {
    expect(sampleOf({ type: 'string', example: 'given' })).toBe('given');
    expect(
      sampleOf({
        type: 'object',
        required: ['id', 'at', 'n', 'kind', 'tags'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          at: { type: 'string', format: 'date-time' },
          n: { type: 'integer', minimum: 5 },
          kind: { type: 'string', enum: ['a', 'b'] },
          tags: { type: 'array', items: { type: 'string' } },
          optional: { type: 'string' },
        },
      }),
    ).toEqual({
      id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      at: '2026-11-22T10:00:00.000Z',
      n: 5,
      kind: 'a',
      tags: ['string'],
    });
    expect(sampleOf({ anyOf: [{ type: 'null' }, { type: 'boolean' }] })).toBe(true);
  });
});
