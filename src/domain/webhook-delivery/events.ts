import { z } from 'zod';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';

/**
 * One webhook message to one shop's endpoint: every attempt is recorded, so the
 * deliveries log is part of the history. A delivery is `<message id>.<integration id>`;
 * a resend is another run of it.
 */
/*
 * Version 2: `orderId` may be absent, for a message of no order (the label's daily tree
 * head). Every version 1 event names an order and reads as it was.
 */
export const WebhookDeliveryAttempted = defineEvent(
  'WebhookDeliveryAttempted',
  2,
  z.object({
    deliveryId: z.string(),
    integrationId: z.uuid(),
    labelId: z.uuid(),
    messageId: z.string(),
    messageType: z.string(),
    /** the order the message is of; absent for a message of the label (audit.tree_head) */
    orderId: z.string().optional(),
    /** 0 the first run, then one per resend */
    run: z.number().int(),
    attempt: z.number().int(),
    url: z.string(),
    /** the receiver's status code; absent when no answer came */
    status: z.number().int().optional(),
    error: z.string().optional(),
    latencyMs: z.number().int(),
    /** the first KiB of the receiver's answer */
    response: z.string(),
    /** delivered; retrying (another attempt follows); failed (none follows); gone (410) */
    outcome: z.enum(['delivered', 'retrying', 'failed', 'gone']),
    attemptedAt: z.iso.datetime(),
    /**
     * when the next attempt is due (with `retrying`); before it was recorded, a workflow kept it
     */
    nextAttemptAt: z.iso.datetime().optional(),
  }),
  { 1: (data) => data },
);

export const WebhookResendRequested = defineEvent(
  'WebhookResendRequested',
  1,
  z.object({
    deliveryId: z.string(),
    integrationId: z.uuid(),
    messageId: z.string(),
    run: z.number().int(),
    requestedAt: z.iso.datetime(),
  }),
);

export type WebhookDeliveryEvent =
  | EventOf<typeof WebhookDeliveryAttempted>
  | EventOf<typeof WebhookResendRequested>;

export const webhookDeliveryEvents = new EventRegistry<WebhookDeliveryEvent>([
  WebhookDeliveryAttempted,
  WebhookResendRequested,
]);

export const deliveryIdOf = (messageId: string, integrationId: string) =>
  `${messageId}.${integrationId}`;
export const webhookDeliveryStream = (deliveryId: string) => `WebhookDelivery-${deliveryId}`;
