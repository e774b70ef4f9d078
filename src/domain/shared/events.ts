import type { z } from 'zod';

/**
 * A versioned event type. Stored events keep the schema version they were written
 * with; reading upcasts them step by step to the current version, so the meaning of
 * a stored event never changes and old payloads stay readable.
 */
export interface EventDefinition<T extends string, S extends z.ZodType> {
  type: T;
  version: number;
  schema: S;
  /** upcasters[v] turns a version-v payload into a version v+1 payload */
  upcasters: Record<number, (data: Record<string, unknown>) => Record<string, unknown>>;
}

export type EventOf<D> =
  D extends EventDefinition<infer T, infer S> ? { type: T; data: z.infer<S> } : never;

export function defineEvent<T extends string, S extends z.ZodType>(
  type: T,
  version: number,
  schema: S,
  upcasters: EventDefinition<T, S>['upcasters'] = {},
): EventDefinition<T, S> {
  for (let v = 1; v < version; v++) {
    if (!upcasters[v]) throw new Error(`${type}: missing upcaster from version ${v}`);
  }
  return { type, version, schema, upcasters };
}

export class UnknownEventError extends Error {
  override name = 'UnknownEventError';
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds definitions of every schema type
type AnyDefinition = EventDefinition<string, any>;

/** The event types of one aggregate: parses stored payloads into typed domain events. */
export class EventRegistry<E extends { type: string; data: unknown }> {
  private readonly byType = new Map<string, AnyDefinition>();

  constructor(definitions: AnyDefinition[]) {
    for (const d of definitions) this.byType.set(d.type, d);
  }

  get types(): string[] {
    return [...this.byType.keys()];
  }

  has(type: string): boolean {
    return this.byType.has(type);
  }

  /** Validates a new event's data and stamps its current schema version. */
  serialize(event: E): { type: string; schemaVersion: number; data: Record<string, unknown> } {
    const def = this.definition(event.type);
    const data = def.schema.parse(event.data) as Record<string, unknown>;
    return { type: event.type, schemaVersion: def.version, data };
  }

  /** Upcasts a stored payload to the current version and validates it. */
  deserialize(stored: { type: string; schemaVersion: number; data: Record<string, unknown> }): E {
    const def = this.definition(stored.type);
    let data = stored.data;
    for (let v = stored.schemaVersion; v < def.version; v++) data = def.upcasters[v]!(data);
    return { type: stored.type, data: def.schema.parse(data) } as E;
  }

  private definition(type: string): AnyDefinition {
    const def = this.byType.get(type);
    if (!def) throw new UnknownEventError(`unknown event type ${type}`);
    return def;
  }
}
