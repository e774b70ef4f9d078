import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';
import { storedKeySchema } from '../shared/keys.ts';

export const PrintshopKeyIssued = defineEvent(
  'PrintshopKeyIssued',
  1,
  z.object({ keyId: z.uuid(), name: z.string(), key: storedKeySchema, issuedAt: z.iso.datetime() }),
);

export type PrintshopKeyEvent = EventOf<typeof PrintshopKeyIssued>;
export const printshopKeyEvents = new EventRegistry<PrintshopKeyEvent>([PrintshopKeyIssued]);
export const printshopKeyStream = (keyId: string) => `PrintshopKey-${keyId}`;
