type Json = Record<string, unknown>;
const SAMPLE_UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';

/**
 * A plausible value for a JSON schema: its own example or default when it has one;
 * `resolve` gives the schema a `$ref` names.
 */
export function sampleOf(
  schema: Json,
  depth = 0,
  resolve: (ref: string) => Json | undefined = () => undefined,
): unknown {
  if (depth > 8) return undefined;
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref);
    return target ? sampleOf(target, depth + 1, resolve) : undefined;
  }
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options)) {
      const first = options.find((o: Json) => o.type !== 'null') ?? options[0];
      return first ? sampleOf(first as Json, depth + 1, resolve) : undefined;
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
          .map(([k, v]) => [k, sampleOf(v, depth + 1, resolve)]),
      );
    }
    case 'array':
      return schema.items ? [sampleOf(schema.items as Json, depth + 1, resolve)] : [];
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

/**
 * Every request body and answer of the document gets an example (on its media type): the
 * schema's own where a route or a named model gives one, else one made from the schema
 * (types, formats, enums, defaults), following references to named models.
 */
export function addExamples(doc: Json): void {
  const schemas = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const resolve = (ref: string) =>
    ref.startsWith('#/components/schemas/')
      ? schemas[ref.slice('#/components/schemas/'.length)]
      : undefined;
  const withExample = (content: Json | undefined) => {
    for (const media of Object.values((content ?? {}) as Record<string, Json>)) {
      if ('example' in media || 'examples' in media || !media.schema) continue;
      const sample = sampleOf(media.schema as Json, 0, resolve);
      if (sample !== undefined) media.example = sample;
    }
  };
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const op of Object.values(item)) {
      withExample((op.requestBody as Json | undefined)?.content as Json | undefined);
      for (const response of Object.values((op.responses ?? {}) as Record<string, Json>))
        withExample(response.content as Json | undefined);
    }
  }
}
