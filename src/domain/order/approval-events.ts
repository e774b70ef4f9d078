import { z } from 'zod';
import { storedDesignSchema } from '../project/design.ts';
import { defineEvent } from '../shared/events.ts';

/* The order's events of proofs and their approval: what a buyer saw, and who said yes or no. */

export const APPROVER_ROLES = ['buyer', 'shop'] as const;
export type ApproverRole = (typeof APPROVER_ROLES)[number];

/** One who must approve an item's proof (no e-mail here: the label's policy keeps it). */
export const approverSchema = z.object({
  role: z.enum(APPROVER_ROLES),
  name: z.string().max(100).optional(),
});
export type Approver = z.infer<typeof approverSchema>;

/** A note pinned on a proof page, millimetres from the page's top-left corner. */
export const pinSchema = z.object({
  page: z.number().int().min(1).max(10_000),
  xMm: z.number().min(0).max(10_000),
  yMm: z.number().min(0).max(10_000),
  text: z.string().min(1).max(500),
});
export type Pin = z.infer<typeof pinSchema>;

/** Who decided: an approver of the list (by role and name), through a link or the API. */
const bySchema = z.object({
  role: z.enum(APPROVER_ROLES),
  name: z.string().optional(),
  via: z.enum(['link', 'api']),
});

/**
 * These items are not printed before their proofs are approved: the approvers and the
 * rules as the label's policy (or the notification) set them when the order came in.
 */
export const ApprovalRequired = defineEvent(
  'ApprovalRequired',
  1,
  z.object({
    orderItemIds: z.array(z.uuid()),
    approvers: z.array(approverSchema).min(1),
    finalApprover: z.enum(APPROVER_ROLES).optional(),
    remindAfterHours: z.number(),
    expireAfterHours: z.number().optional(),
    requiredAt: z.iso.datetime(),
  }),
);

/** A proof was drawn from the item's print file: the pages a buyer is shown. */
export const ProofMade = defineEvent(
  'ProofMade',
  1,
  z.object({
    orderItemId: z.uuid(),
    version: z.number().int().min(1),
    printFileSha256: z.string(),
    pages: z.array(
      z.object({
        page: z.number().int(),
        storageKey: z.string(),
        sha256: z.string(),
        width: z.number().int(),
        height: z.number().int(),
      }),
    ),
    /** who is asked, and until when their links hold (the shops' messages say both) */
    approvers: z.array(approverSchema),
    linksExpireAt: z.iso.datetime(),
    madeAt: z.iso.datetime(),
  }),
);

/** One approver approved this version of the proof, and so this print file. */
export const ProofApproved = defineEvent(
  'ProofApproved',
  1,
  z.object({
    orderItemId: z.uuid(),
    by: bySchema,
    version: z.number().int(),
    printFileSha256: z.string(),
    approvedAt: z.iso.datetime(),
  }),
);

/** One approver asked for changes: the item waits for a revision. */
export const ProofRejected = defineEvent(
  'ProofRejected',
  1,
  z.object({
    orderItemId: z.uuid(),
    by: bySchema,
    version: z.number().int(),
    printFileSha256: z.string(),
    comment: z.string().optional(),
    pins: z.array(pinSchema),
    rejectedAt: z.iso.datetime(),
  }),
);

/** The operator let the item go to production without the approvers. */
export const ApprovalWaived = defineEvent(
  'ApprovalWaived',
  1,
  z.object({
    orderItemId: z.uuid(),
    by: z.string(),
    reason: z.string(),
    waivedAt: z.iso.datetime(),
  }),
);

/**
 * The item takes its project's design as it is now (a change after a rejection, or any
 * change before production): a new print file and proof follow. `version` counts the
 * item's designs (the sold one is 1); the design is copied, so the file can be made
 * again from the order's own events.
 */
export const ItemRevised = defineEvent(
  'ItemRevised',
  1,
  z.object({
    orderItemId: z.uuid(),
    version: z.number().int().min(2),
    projectId: z.uuid(),
    projectVersion: z.number().int(),
    design: storedDesignSchema,
    revisedAt: z.iso.datetime(),
  }),
);

/**
 * Every item of the order that waited for approval is approved (or waived): production may take
 * them.
 */
export const OrderApproved = defineEvent(
  'OrderApproved',
  1,
  z.object({ approvedAt: z.iso.datetime() }),
);

/** The approvers were reminded of a proof still waiting for them. */
export const ProofReminded = defineEvent(
  'ProofReminded',
  1,
  z.object({
    orderItemId: z.uuid(),
    version: z.number().int(),
    /** the approvers who have not approved yet, by their place in the list */
    pending: z.array(approverSchema.extend({ approver: z.number().int().min(0) })),
    linksExpireAt: z.iso.datetime(),
    remindedAt: z.iso.datetime(),
  }),
);

/** The proof waited past its expiry: the item is not produced. */
export const ProofExpired = defineEvent(
  'ProofExpired',
  1,
  z.object({
    orderItemId: z.uuid(),
    version: z.number().int(),
    expiredAt: z.iso.datetime(),
  }),
);
