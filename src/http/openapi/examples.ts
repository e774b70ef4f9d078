import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';

type Json = Record<string, unknown>;
const SAMPLE_UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** A plausible value for a JSON schema: its own example or default when it has one. */
export function sampleOf(schema: Json, depth = 0): unknown {
  if (depth > 8) return undefined;
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) {
      const first = options.find((o: Json) => o.type !== 'null') ?? options[0];
      return first ? sampleOf(first as Json, depth + 1) : undefined;
    }
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Json>;
      const required = new Set((schema.required ?? []) as string[]);
      return Object.fromEntries(
        Object.entries(props)
          .filter(([k]) => required.has(k))
          .map(([k, v]) => [k, sampleOf(v, depth + 1)]),
      );
    }
    case 'array':
      return schema.items ? [sampleOf(schema.items as Json, depth + 1)] : [];
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1.5;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'uuid') return SAMPLE_UUID;
      if (schema.format === 'date-time') return '2026-11-22T10:00:00.000Z';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://shop.example.com';
      if (schema.format === 'email') return 'ada@example.com';
      return 'string';
    default:
      return undefined;
  }
}

function withExample(schema: unknown): void {
  if (!schema || typeof schema !== 'object') return;
  const s = schema as Json;
  if (!('example' in s) && !('examples' in s)) {
    const sample = sampleOf(s);
    if (sample !== undefined) s.example = sample;
  }
}

/**
 * Wraps the route transform so that every request body and response in the OpenAPI
 * document has an example: the schema's own where a route gives one, else one made from
 * the schema (types, formats, enums, defaults).
 */
export function withExamples(
  transform: NonNullable<FastifyDynamicSwaggerOptions['transform']>,
): NonNullable<FastifyDynamicSwaggerOptions['transform']> {
  return (input) => {
    const out = transform(input) as { schema: Json; url: string };
    const schema = out.schema ?? {};
    withExample(schema.body);
    for (const response of Object.values((schema.response ?? {}) as Record<string, Json>)) {
      const content = response.content as Record<string, { schema?: unknown }> | undefined;
      if (content) for (const media of Object.values(content)) withExample(media.schema);
      else withExample(response);
    }
    return out;
  };
}
