import { z } from 'zod';
import { type BatchingRule, batchingRuleSchema } from '../batch/events.ts';
import { encryptedSchema } from '../shared/encrypted.ts';
import { defineEvent, type EventOf, EventRegistry } from '../shared/events.ts';
import { storedKeySchema } from '../shared/keys.ts';

export const LabelCreated = defineEvent(
  'LabelCreated',
  1,
  z.object({
    labelId: z.uuid(),
    name: z.string(),
    partnerId: z.number().int().positive(),
    adminKey: storedKeySchema,
    fulfillmentKey: storedKeySchema,
    createdAt: z.iso.datetime(),
  }),
);

/** Claims a partner id for one label; the stream per id makes the claim unique. */
export const PartnerIdReserved = defineEvent(
  'PartnerIdReserved',
  1,
  z.object({ partnerId: z.number().int().positive(), labelId: z.uuid() }),
);

export const ENVIRONMENTS = ['staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** A partner-hosted callback address; its key only ever encrypted (db/encryption-keys.ts). */
const callbackTarget = z.object({ url: z.string(), apiKey: encryptedSchema });

export const LabelCallbacksConfigured = defineEvent(
  'LabelCallbacksConfigured',
  1,
  z.object({
    labelId: z.uuid(),
    staging: callbackTarget.optional(),
    production: callbackTarget,
    environment: z.enum(ENVIRONMENTS),
    configuredAt: z.iso.datetime(),
  }),
);

/** How long the label's orders may take to render before they count as overdue. */
export const DEFAULT_RENDER_WITHIN_MINUTES = 30;
export const renderWithinMinutesSchema = z.number().int().min(0).max(525_600);

export const LabelRenderDeadlineSet = defineEvent(
  'LabelRenderDeadlineSet',
  1,
  z.object({
    labelId: z.uuid(),
    renderWithinMinutes: renderWithinMinutesSchema,
    setAt: z.iso.datetime(),
  }),
);

/**
 * A label's share of the service: a factor on every cost class's running and waiting
 * places (the deployment's `LABEL_SHARES`); 1 unless the operator raised it.
 */
export const DEFAULT_SHARE_FACTOR = 1;
export const shareFactorSchema = z.number().int().min(1).max(64);

export const LabelShareSet = defineEvent(
  'LabelShareSet',
  1,
  z.object({ labelId: z.uuid(), factor: shareFactorSchema, setAt: z.iso.datetime() }),
);

/** The total area coverage a print shop's output condition takes, percent. */
export const DEFAULT_MAX_INK_COVERAGE = 300;

export const outputProfileRefSchema = z.object({
  /** the ICC profile, kept in the image store under icc/<sha256> */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  description: z.string(),
});

/**
 * How the label's print files are made: the print shop's CMYK output profile (null: the
 * bundled default), crop marks, and the total area coverage the preflight checks for.
 * Each event holds all of them, as they are from then on.
 */
export const LabelPrintSettingsSet = defineEvent(
  'LabelPrintSettingsSet',
  1,
  z.object({
    labelId: z.uuid(),
    outputProfile: outputProfileRefSchema.nullable(),
    cropMarks: z.boolean(),
    maxInkCoverage: z.number().int().min(100).max(400),
    setAt: z.iso.datetime(),
  }),
);
export type PrintSettings = Omit<
  EventOf<typeof LabelPrintSettingsSet>['data'],
  'labelId' | 'setAt'
>;
export const DEFAULT_PRINT_SETTINGS: PrintSettings = {
  outputProfile: null,
  cropMarks: false,
  maxInkCoverage: DEFAULT_MAX_INK_COVERAGE,
};

/** How long an order may take from receipt to shipment, unless its label says otherwise. */
export const DEFAULT_SHIP_WITHIN_HOURS = 72;
export const shipWithinHoursSchema = z.number().int().min(0).max(8_760);

/** How long the label's orders may take from receipt to shipment before they are late. */
export const LabelShipDeadlineSet = defineEvent(
  'LabelShipDeadlineSet',
  1,
  z.object({
    labelId: z.uuid(),
    shipWithinHours: shipWithinHoursSchema,
    setAt: z.iso.datetime(),
  }),
);

export const SLIP_SIZES = ['A4', 'Letter', 'A5', 'A6', '4x6in'] as const;
export type SlipSize = (typeof SLIP_SIZES)[number];

export const brandingSchema = z.object({
  /** the logo, a PNG kept in the image store under logo/<sha256> */
  logo: z
    .object({
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      width: z.number().int().positive(),
      height: z.number().int().positive(),
    })
    .nullable(),
  returnAddress: z.array(z.string()).max(6),
  message: z.string().nullable(),
  slipSize: z.enum(SLIP_SIZES),
});
export type Branding = z.infer<typeof brandingSchema>;
export const DEFAULT_BRANDING: Branding = {
  logo: null,
  returnAddress: [],
  message: null,
  slipSize: 'A4',
};

/** What the label's packing slips show; each event holds all of it, as it is from then on. */
export const LabelBrandingSet = defineEvent(
  'LabelBrandingSet',
  1,
  brandingSchema.extend({ labelId: z.uuid(), setAt: z.iso.datetime() }),
);

/**
 * How the label's press runs open by themselves (its rules) and where released batches
 * are laid for the press (a hot folder: a prefix in the file store); each event holds all
 * of it, as it is from then on. v2: a rule may belong to a facility (`filter.facilityId`);
 * every v1 rule is the label's, as it always was.
 */
export const LabelBatchingSet = defineEvent(
  'LabelBatchingSet',
  2,
  z.object({
    labelId: z.uuid(),
    rules: z.array(batchingRuleSchema),
    hotFolder: z.string().nullable(),
    setAt: z.iso.datetime(),
  }),
  { 1: (data) => data },
);
export type Batching = { rules: BatchingRule[]; hotFolder: string | null };

/**
 * Which of the label's sales wait for their proofs to be approved before production, and
 * by whom; each event holds all of it, as it is from then on. An approver's e-mail is
 * for the shop's messages only (the order's events name approvers by role and name).
 */
export const approvalPolicySchema = z.object({
  mode: z.enum(['none', 'all', 'skus']),
  skus: z.array(z.string()),
  approvers: z.array(
    z.object({
      role: z.enum(['buyer', 'shop']),
      name: z.string().max(100).optional(),
      email: z.string().max(254).optional(),
    }),
  ),
  finalApprover: z.enum(['buyer', 'shop']).optional(),
  remindAfterHours: z.number(),
  expireAfterHours: z.number().optional(),
});
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;
export const NO_APPROVAL: ApprovalPolicy = {
  mode: 'none',
  skus: [],
  approvers: [],
  remindAfterHours: 24,
};
export const LabelApprovalPolicySet = defineEvent(
  'LabelApprovalPolicySet',
  1,
  z.object({ labelId: z.uuid(), ...approvalPolicySchema.shape, setAt: z.iso.datetime() }),
);

export type LabelEvent =
  | EventOf<typeof LabelCreated>
  | EventOf<typeof LabelCallbacksConfigured>
  | EventOf<typeof LabelRenderDeadlineSet>
  | EventOf<typeof LabelPrintSettingsSet>
  | EventOf<typeof LabelShipDeadlineSet>
  | EventOf<typeof LabelBrandingSet>
  | EventOf<typeof LabelBatchingSet>
  | EventOf<typeof LabelApprovalPolicySet>
  | EventOf<typeof LabelShareSet>;
export const labelEvents = new EventRegistry<LabelEvent>([
  LabelCreated,
  LabelCallbacksConfigured,
  LabelRenderDeadlineSet,
  LabelPrintSettingsSet,
  LabelShipDeadlineSet,
  LabelBrandingSet,
  LabelBatchingSet,
  LabelApprovalPolicySet,
  LabelShareSet,
]);
export type PartnerIdEvent = EventOf<typeof PartnerIdReserved>;
export const partnerIdEvents = new EventRegistry<PartnerIdEvent>([PartnerIdReserved]);

export const labelStream = (labelId: string) => `Label-${labelId}`;
export const partnerIdStream = (partnerId: number) => `PartnerId-${partnerId}`;
