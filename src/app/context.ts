import type pg from 'pg';
import type { AuditSigner } from '../db/audit-heads.ts';
import type { OrderCommand, OrderState } from '../domain/order/decider.ts';
import type { OrderEvent } from '../domain/order/events.ts';
import type { LabelMaximums } from '../domain/shared/maximums.ts';
import type { EventStore, Position } from '../eventstore/port.ts';
import type { ImageChecks, MockupDrawing, VariableData } from '../print/image-work.ts';
import type { StoreLocation } from '../storage/location.ts';
import type { FileStorage } from '../storage/port.ts';
import type { WebhookTargets } from '../webhooks/address.ts';
import type { CachedReads } from './cached-reads.ts';
import type { CommandBatches } from './command-batches.ts';
import type { FoldedStates } from './folded-states.ts';

/** Waits until a read model has taken an append, so a caller reads its own write. */
export interface ReadModels {
  /**
   * whether it has, within a few seconds (true at once for no position); `lastType`, the
   * type of the event at `position` where the caller knows it, spares a projection that
   * takes that type the question whether the log holds anything for it
   */
  seen(projection: string, position: Position | undefined, lastType?: string): Promise<boolean>;
}

/** What the use cases work with; the composition root (src/bootstrap) makes it. */
/** What draws the previews of a PDF, one PNG per page. */
export type DrawPreviews = (pdf: Uint8Array) => Promise<Buffer[]>;

export interface AppContext {
  store: EventStore;
  /** read models and the side tables (encryption keys, throttle counters) */
  pool: pg.Pool;
  /** print files */
  storage: FileStorage;
  /** design images, content-addressed */
  images: FileStorage;
  /** print-file downloads streamed, or redirected to signed links (PRINT_FILE_DOWNLOADS) */
  downloads: { mode: 'stream' | 'redirect'; ttlSeconds: number };
  readModels: ReadModels;
  /** draws print-file page previews (off the caller's thread, at low priority) */
  drawPreviews: DrawPreviews;
  /** print methods that print with inks: each colour a spot colour (INK_PRINT_METHODS) */
  inkMethods: string[];
  /** checks the images clients send, in processes a deadline can stop */
  imageChecks: ImageChecks;
  /** draws mockups before the sale, in image processes */
  mockupDrawing: MockupDrawing;
  /** data sets taken in and checked, records drawn alone, in image processes */
  variableData: VariableData;
  /** where the stores are, for the image processes that open them themselves */
  stores: StoreLocation;
  /** where webhooks may go (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE) */
  webhookTargets: WebhookTargets;
  /** read-model queries every order repeats, answered from memory until they change */
  reads: CachedReads;
  /** orders' states as this process last appended them (PostgreSQL event store) */
  orderStates?: FoldedStates<OrderState>;
  /** shop-floor commands on orders: decided together per order, on states kept between them */
  orderCommands: CommandBatches<OrderCommand, OrderEvent, OrderState>;
  /** signs the audit log's tree heads (AUDIT_SIGNING_KEY) */
  auditSigner: AuditSigner;
  /**
   * the most of each collection a label may hold (LABEL_MAXIMUMS, the deployment's setting applied)
   */
  maximums: LabelMaximums;
  /** told when an item reaches a stage, with the time since its order's receipt (metrics) */
  observeStage?: (labelId: string, stage: string, secondsSinceReceipt: number) => void;
}

/** For callers that read nothing back (scripts, tests over another process's database). */
export const noReadModels: ReadModels = { seen: async () => true };
