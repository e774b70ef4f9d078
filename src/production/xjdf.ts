import { XMLBuilder } from 'fast-xml-parser';
import {
  type BatchItem,
  type BatchSpec,
  batchCode,
  type Sheet,
  sheetCode,
} from '../domain/batch/events.ts';
import { PT_PER_MM } from '../print/units.ts';
import { stacksOf } from './layout.ts';

export const XJDF_NAMESPACE = 'http://www.CIP4.org/JDFSchema_2_0';
/**
 * Our own attributes where XJDF has none (a cut block's product and turn): XJDF allows
 * attributes of another namespace on CutBlock, and a reader that does not know them skips them.
 */
export const EDITOR_NAMESPACE = 'urn:editor-platform:xjdf:1';

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
  // cut and stack: each grid position a stack of records, named on its cut blocks
  const stacking = t.spec.imposition === 'cut-and-stack';
  const stacks = stacking ? stacksOf(t.sheets) : [];
  const stackAt = new Map(stacks.map((st) => [`${st.xMm},${st.yMm}`, st.stack]));
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    XJDF: {
      '@_xmlns': XJDF_NAMESPACE,
      '@_xmlns:ep': EDITOR_NAMESPACE,
      '@_JobID': t.batchId,
      '@_JobPartID': 'press-run',
      '@_Types': `Imposition DigitalPrinting Cutting${stacking ? ' Stacking' : ''}`,
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
        ...(stacking ? [{ '@_IDUsage': 'Imposition', '@_IDValue': 'cut-and-stack' }] : []),
      ],
      ProductList: {
        Product: t.items.map((i) => ({
          '@_ID': `P-${i.orderItemId}`,
          '@_ExternalID': i.orderItemId,
          '@_Amount': String(Math.round(copiesOn(i.orderItemId) / Math.max(1, i.file.pages))),
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
              '@_MediaType': 'Paper',
              '@_MediaUnit': t.spec.media.kind === 'roll' ? 'Roll' : 'Sheet',
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
          // a Resource's children in the schema's order: AmountPool, then Part
          Resource: t.sheets.map((s) => ({
            '@_DescriptiveName': sheetCode(t.batchId, s.n),
            AmountPool: { PartAmount: { '@_Amount': '1' } },
            ...part(s.n),
            Component: { '@_Dimensions': `${pt(s.widthMm)} ${pt(s.heightMm)} 0` },
          })),
        },
        {
          '@_Name': 'CuttingParams',
          '@_Usage': 'Input',
          Resource: t.sheets.map((s) => ({
            ...part(s.n),
            CuttingParams: {
              // each placed piece's box on the sheet in points, PDF's way (from the
              // bottom left; a turned piece's box is already turned)
              CutBlock: pieces(s.n).map((p) => ({
                '@_BlockName': `${p.orderItemId}-${p.page}-${p.copy}`,
                '@_Box': `${pt(p.xMm)} ${pt(s.heightMm - p.yMm - p.heightMm)} ${pt(p.xMm + p.widthMm)} ${pt(s.heightMm - p.yMm)}`,
                '@_ep:ProductRef': `P-${p.orderItemId}`,
                '@_ep:Rotate': p.rotated ? '90' : '0',
                ...(stacking
                  ? {
                      '@_ep:Stack': String(stackAt.get(`${p.xMm},${p.yMm}`)),
                      '@_ep:Record': String(p.page),
                    }
                  : {}),
              })),
            },
          })),
        },
        ...(stacking
          ? [
              {
                '@_Name': 'StackingParams',
                '@_Usage': 'Input',
                // each stack at most as deep as the pile of sheets
                Resource: {
                  '@_DescriptiveName': `${stacks.length} stacks of records, in order, top first`,
                  StackingParams: { '@_StackAmount': String(t.sheets.length) },
                },
              },
            ]
          : []),
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
