import { z } from 'zod';
import type { ApprovalView } from '#projections/order-approvals';
import { APPROVER_ROLES, pinSchema } from '../../domain/order/approval-events.ts';
import type { ProofLinkMaker } from '../../webhooks/messages.ts';

const role = z.enum(APPROVER_ROLES);
const approverSchema = z.object({ role, name: z.string().trim().min(1).max(100).optional() });

export const approvalPolicySchema = z
  .object({
    mode: z
      .enum(['none', 'all', 'skus'])
      .describe('which sales wait for approval: none, all, or those of the SKUs named'),
    skus: z.array(z.string().trim().min(1).max(200)).max(1000).optional(),
    approvers: z
      .array(
        approverSchema
          .extend({
            // a plain pattern, not the `email` format: validators disagree on that format's
            // edges, and the address only goes into the shop's own messages
            email: z
              .string()
              .max(254)
              .regex(/^[^\s@<>()",;:]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/, 'an e-mail address')
              .optional(),
          })
          .strict(),
      )
      .max(10),
    finalApprover: role.optional().describe('who approves last, after every other approver'),
    remindAfterHours: z
      .number()
      .min(1)
      .max(24 * 90),
    expireAfterHours: z
      .number()
      .min(1)
      .max(24 * 365)
      .optional(),
  })
  .strict()
  .meta({
    id: 'ApprovalPolicy',
    example: {
      mode: 'skus',
      skus: ['PEN-100'],
      approvers: [
        { role: 'buyer', name: 'Buyer' },
        { role: 'shop', name: 'Prepress' },
      ],
      finalApprover: 'shop',
      remindAfterHours: 24,
      expireAfterHours: 168,
    },
  });

export const decisionBody = z
  .object({
    decision: z.enum(['approve', 'reject']),
    comment: z.string().max(2000).optional(),
    pins: z.array(pinSchema.strict()).max(50).optional(),
    onBehalfOf: z
      .string()
      .max(100)
      .optional()
      .describe("the approver decided for, by name or role (the shop's approver when absent)"),
  })
  .strict()
  .meta({
    id: 'ProofDecision',
    example: {
      decision: 'reject',
      comment: 'the name is misspelt',
      pins: [{ page: 1, xMm: 20, yMm: 12, text: 'Jonh → John' }],
    },
  });

const version = z.number().int().min(0).max(100_000);
const pixels = z.number().int().min(1).max(100_000);
const instant = z.iso.datetime();

const approvalStatus = z.enum([
  'awaiting_proof',
  'awaiting_approval',
  'rejected',
  'approved',
  'waived',
  'expired',
]);

export const decisionAnswer = z
  .object({
    orderItemId: z.uuid(),
    status: approvalStatus,
    version,
    printFileSha256: z.string().optional(),
  })
  .meta({ id: 'ProofDecisionAnswer' });

export const itemApprovalSchema = z
  .object({
    status: approvalStatus,
    version: version.describe("the latest proof's version (0 before the first)"),
    approvedSha256: z
      .string()
      .optional()
      .describe('the print file approved: the one production uses'),
    approvers: z.array(approverSchema),
    finalApprover: role.optional(),
    since: instant.optional().describe('waiting for the approvers since'),
    approvedAt: instant.optional(),
    proofs: z.array(
      z.object({
        version,
        printFileSha256: z.string(),
        madeAt: instant,
        pages: z.array(
          z.object({
            page: z.number().int().min(1).max(10_000),
            url: z.string(),
            sha256: z.string(),
            width: pixels,
            height: pixels,
          }),
        ),
      }),
    ),
    links: z
      .array(z.object({ role, name: z.string().optional(), url: z.string() }))
      .optional()
      .describe(
        "each approver's link to the latest proof (signed, expiring, never stored), while it waits for them",
      ),
    decisions: z.array(
      z.object({
        decision: z.enum(['approve', 'reject', 'waive']),
        by: z.object({
          role: z.string().optional(),
          name: z.string().optional(),
          via: z.string().optional(),
          operator: z.string().optional(),
        }),
        version,
        comment: z.string().optional(),
        pins: z.array(pinSchema).optional(),
        at: instant,
      }),
    ),
  })
  .meta({ id: 'ItemApproval' });

/** Where a proof page is downloaded (with the admin key). */
export const proofPagePath = (orderItemId: string, version: number, page: number) =>
  `/api/orderitem/${orderItemId}/proofs/${version}/pages/${page}`;

/** An approver's link to a proof version: made when shown, never stored. */
export type LinkFor = ProofLinkMaker;

export function toItemApproval(
  a: ApprovalView,
  item: { labelId: string; orderItemId: string },
  publicBaseUrl: string,
  linkFor?: LinkFor,
): z.infer<typeof itemApprovalSchema> {
  const latest = a.proofs.at(-1);
  const links =
    linkFor && latest && a.status === 'awaiting_approval'
      ? a.approvers.map((p, i) => ({
          ...p,
          url: linkFor(
            item.labelId,
            item.orderItemId,
            i,
            latest.version,
            new Date(latest.linksExpireAt),
          ),
        }))
      : undefined;
  return {
    status: a.status,
    version: a.version,
    ...(a.approvedSha256 ? { approvedSha256: a.approvedSha256 } : {}),
    approvers: a.approvers,
    ...(a.finalApprover ? { finalApprover: a.finalApprover } : {}),
    ...(a.since ? { since: a.since } : {}),
    ...(a.approvedAt ? { approvedAt: a.approvedAt } : {}),
    proofs: a.proofs.map((p) => ({
      version: p.version,
      printFileSha256: p.printFileSha256,
      madeAt: p.madeAt,
      pages: p.pages.map((g) => ({
        page: g.page,
        url: `${publicBaseUrl}${proofPagePath(item.orderItemId, p.version, g.page)}`,
        sha256: g.sha256,
        width: g.width,
        height: g.height,
      })),
    })),
    ...(links ? { links } : {}),
    decisions: a.decisions,
  };
}

export const proofPageImage = {
  description: 'the proof page, PNG',
  content: { 'image/png': { schema: z.string().meta({ format: 'binary' }) } },
};

export const revisionBody = z
  .object({ projectId: z.uuid().describe("the item's own project, as it is now") })
  .strict()
  .meta({ id: 'ItemRevision' });

export const revisionAnswer = z
  .object({
    orderItemId: z.uuid(),
    version: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .describe("the item's design version (1: as sold)"),
    status: z.string().describe('pending: its print file is being made again'),
    approval: approvalStatus.optional(),
  })
  .meta({ id: 'ItemRevisionAnswer' });
