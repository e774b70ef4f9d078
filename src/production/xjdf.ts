import { XMLBuilder } from 'fast-xml-parser';
import {
  type BatchItem,
  type BatchSpec,
  batchCode,
  type Sheet,
  sheetCode,
} from '../domain/batch/events.ts';
import { PT_PER_MM } from '../print/units.ts';

export const XJDF_NAMESPACE = 'http://www.CIP4.org/JDFSchema_2_0';

export interface TicketInput {
  batchId: string;
  spec: BatchSpec;
  items: BatchItem[];
  sheets: Pick<Sheet, 'n' | 'widthMm' | 'heightMm' | 'placements'>[];
  /** the batch's request time: the ticket's own date (the same batch, the same ticket) */
  createdAt: Date;
  /** the sheets' file names, as the hot folder lays them beside the ticket */
  sheetFile: (n: number) => string;
}

const pt = (mm: number) => (Math.round(mm * PT_PER_MM * 100) / 100).toString();
const sheetName = (n: number) => `Sheet-${n}`;

/**
 * The batch's job ticket as CIP4 XJDF 2.0, for a RIP or a print MIS: one product per
 * order item with its copies, the media, each sheet (its PDF, its part, its code), and
 * the cutting: one cut block per placed piece at its trim, and for gang sheets the
 * `CutContour` spot colour a plotter follows. Lengths in points, as XJDF has them.
 */
export function jobTicket(t: TicketInput): string {
  const pieces = (n: number) => t.sheets.find((s) => s.n === n)?.placements ?? [];
  const copiesOn = (orderItemId: string) =>
    t.sheets.reduce(
      (a, s) => a + s.placements.filter((p) => p.orderItemId === orderItemId).length,
      0,
    );
  const part = (n: number) => ({ Part: { '@_SheetName': sheetName(n) } });
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    XJDF: {
      '@_xmlns': XJDF_NAMESPACE,
      '@_JobID': t.batchId,
      '@_JobPartID': 'press-run',
      '@_Types': 'Imposition DigitalPrinting Cutting',
      '@_Version': '2.0',
      '@_DescriptiveName': `Batch ${t.batchId} (${t.spec.mode}, ${t.sheets.length} sheet(s))`,
      AuditPool: {
        AuditCreated: {
          Header: {
            '@_AgentName': 'editor-platform',
            '@_AgentVersion': '1',
            '@_DeviceID': 'editor-platform',
            '@_Time': t.createdAt.toISOString(),
          },
        },
      },
      GeneralID: [
        { '@_IDUsage': 'BatchCode', '@_IDValue': batchCode(t.batchId) },
        { '@_IDUsage': 'ImpositionMode', '@_IDValue': t.spec.mode },
        // the spot colour a cutting plotter follows (XJDF has no attribute of its own for it)
        ...(t.spec.mode === 'gang'
          ? [{ '@_IDUsage': 'CutContourSeparation', '@_IDValue': 'CutContour' }]
          : []),
      ],
      ProductList: {
        Product: t.items.map((i) => ({
          '@_ID': `P-${i.orderItemId}`,
          '@_ExternalID': i.orderItemId,
          '@_Amount': String(copiesOn(i.orderItemId) / Math.max(1, i.file.pages)),
          '@_DescriptiveName': `${i.itemId} (${i.sku})`,
          GeneralID: [
            { '@_IDUsage': 'OrderID', '@_IDValue': i.orderId },
            { '@_IDUsage': 'Barcode', '@_IDValue': i.barcode.value },
          ],
        })),
      },
      ResourceSet: [
        {
          '@_Name': 'Media',
          '@_Usage': 'Input',
          Resource: {
            '@_ID': 'Media-1',
            '@_DescriptiveName': t.spec.media.preset ?? 'custom',
            Media: {
              '@_Dimension': `${pt(t.spec.media.widthMm)} ${pt(t.spec.media.heightMm)}`,
              '@_MediaType': t.spec.media.kind === 'roll' ? 'Roll' : 'Paper',
            },
          },
        },
        {
          '@_Name': 'RunList',
          '@_Usage': 'Input',
          Resource: t.sheets.map((s) => ({
            ...part(s.n),
            RunList: {
              FileSpec: { '@_URL': t.sheetFile(s.n), '@_MimeType': 'application/pdf' },
            },
          })),
        },
        {
          '@_Name': 'Component',
          '@_Usage': 'Output',
          Resource: t.sheets.map((s) => ({
            ...part(s.n),
            AmountPool: { PartAmount: { '@_Amount': '1' } },
            Component: {
              '@_ComponentType': 'Sheet',
              '@_Dimensions': `${pt(s.widthMm)} ${pt(s.heightMm)} 0`,
              '@_DescriptiveName': sheetCode(t.batchId, s.n),
            },
          })),
        },
        {
          '@_Name': 'CuttingParams',
          '@_Usage': 'Input',
          Resource: t.sheets.map((s) => ({
            ...part(s.n),
            CuttingParams: {
              CutBlock: pieces(s.n).map((p) => ({
                '@_BlockName': `${p.orderItemId}-${p.page}-${p.copy}`,
                '@_BlockType': 'CutBlock',
                '@_BlockSize': `${pt(p.widthMm)} ${pt(p.heightMm)}`,
                // the block's origin on the sheet, PDF's way: from the bottom left
                '@_BlockTrf': `${p.rotated ? '0 1 -1 0' : '1 0 0 1'} ${pt(p.xMm + (p.rotated ? p.widthMm : 0))} ${pt(s.heightMm - p.yMm - p.heightMm)}`,
                '@_ProductRef': `P-${p.orderItemId}`,
              })),
            },
          })),
        },
      ],
    },
  };
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    format: true,
    suppressEmptyNode: true,
  });
  return builder.build(doc);
}
