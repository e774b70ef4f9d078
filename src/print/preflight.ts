import { inflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  type PDFObject,
  PDFRawStream,
  PDFRef,
  PDFStream,
} from 'pdf-lib';
import type { RenderFacts } from './pdf.ts';
import { MIN_DPI } from './units.ts';

export type RuleResult = 'pass' | 'warning' | 'failure';

export interface PreflightRule {
  rule: string;
  /** what a broken rule means: a warning on the item, or the item failing */
  severity: 'warning' | 'failure';
  result: RuleResult;
  detail: string;
}

export interface PreflightReport {
  /** no rule of severity failure broke */
  passed: boolean;
  rules: PreflightRule[];
  plates: string[];
  /** the highest total area coverage, percent */
  maxInkCoverage: number;
  minDpi: number | undefined;
}

export interface PreflightLimits {
  /** total area coverage the output condition takes, percent (300 by default) */
  maxInkCoverage: number;
  /** the inks of a product printed with inks: exactly these plates, and no process plate */
  inks: string[] | undefined;
}

const name = (o: PDFObject | undefined) => (o instanceof PDFName ? o.decodeText() : undefined);

function text(o: PDFObject | undefined): string | undefined {
  if (!o) return undefined;
  const t = o as { decodeText?: () => string };
  return typeof t.decodeText === 'function' ? t.decodeText() : undefined;
}

function streamText(s: PDFObject | undefined): string {
  if (!(s instanceof PDFRawStream)) return '';
  const filter = name(s.dict.get(PDFName.of('Filter')));
  const bytes = filter === 'FlateDecode' ? inflateSync(s.contents) : s.contents;
  return Buffer.from(bytes).toString('latin1');
}

/** A page's rectangle box as [x0, y0, x1, y1], or undefined when absent. */
function box(page: PDFDict, key: string, doc: PDFDocument): number[] | undefined {
  const a = page.lookupMaybe(PDFName.of(key), PDFArray);
  if (!a) return undefined;
  const v = a
    .asArray()
    .map((n) => Number((doc.context.lookup(n) as unknown as { asNumber(): number }).asNumber()));
  return [
    Math.min(v[0]!, v[2]!),
    Math.min(v[1]!, v[3]!),
    Math.max(v[0]!, v[2]!),
    Math.max(v[1]!, v[3]!),
  ];
}

const inside = (a: number[], b: number[]) =>
  a[0]! >= b[0]! - 0.01 && a[1]! >= b[1]! - 0.01 && a[2]! <= b[2]! + 0.01 && a[3]! <= b[3]! + 0.01;

/** The colour spaces a colour space object names, flattened (Separation alternates too). */
function spaceNames(o: PDFObject | undefined, doc: PDFDocument): string[] {
  const v = o instanceof PDFRef ? doc.context.lookup(o) : o;
  if (v instanceof PDFName) return [v.decodeText()];
  if (v instanceof PDFArray) {
    const kind = name(v.get(0));
    if (kind === 'Separation' || kind === 'DeviceN') return [kind, ...spaceNames(v.get(2), doc)];
    if (kind === 'ICCBased') {
      const s = doc.context.lookup(v.get(1));
      const n =
        s instanceof PDFStream
          ? Number(
              (
                s.dict.get(PDFName.of('N')) as unknown as { asNumber(): number } | undefined
              )?.asNumber(),
            )
          : 0;
      return [n === 3 ? 'ICCBased RGB' : n === 4 ? 'ICCBased CMYK' : 'ICCBased Gray'];
    }
    return kind ? [kind] : [];
  }
  return [];
}

const RGB_SPACES = new Set(['DeviceRGB', 'CalRGB', 'ICCBased RGB', 'Lab']);

/**
 * Checks a print file as a print shop's preflight would, with the service's own code:
 * PDF/X-4 identification and the output intent, colour spaces (no RGB anywhere), fonts
 * embedded (and subset-tagged), boxes nested, plates, the lowest effective image
 * resolution and the total area coverage. The last three come from what the renderer
 * placed (`facts`): coverage is the highest C+M+Y+K of any image pixel or fill inside the
 * bleed, which is the page's maximum, or above it where something covers it.
 */
export async function preflight(
  bytes: Uint8Array,
  facts: RenderFacts,
  limits: PreflightLimits,
): Promise<PreflightReport> {
  const rules: PreflightRule[] = [];
  const add = (rule: string, severity: 'warning' | 'failure', ok: boolean, detail: string) =>
    rules.push({ rule, severity, result: ok ? 'pass' : severity, detail });
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const ctx = doc.context;

  // PDF/X-4 identification
  const header = Buffer.from(bytes.subarray(0, 8)).toString('latin1');
  const info = ctx.lookupMaybe(ctx.trailerInfo.Info, PDFDict);
  const version = text(info?.get(PDFName.of('GTS_PDFXVersion')));
  const trapped = name(info?.get(PDFName.of('Trapped')));
  const title = text(info?.get(PDFName.of('Title')));
  const xmp = streamText(ctx.lookup(doc.catalog.get(PDFName.of('Metadata'))));
  const id = ctx.trailerInfo.ID;
  const missing = [
    ...(header === '%PDF-1.6' ? [] : [`header ${header} (PDF 1.6 expected)`]),
    ...(version === 'PDF/X-4' ? [] : ['Info GTS_PDFXVersion (PDF/X-4)']),
    ...(trapped === 'True' || trapped === 'False' ? [] : ['Info Trapped']),
    ...(title ? [] : ['Info Title']),
    ...(xmp.includes('<pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>')
      ? []
      : ['XMP PDF/X identification']),
    ...(id ? [] : ['trailer ID']),
  ];
  add(
    'pdfx_identification',
    'failure',
    missing.length === 0,
    missing.length ? `missing: ${missing.join(', ')}` : 'PDF/X-4, PDF 1.6, Trapped, Title, XMP, ID',
  );

  // the output intent and its CMYK destination profile
  const intents = doc.catalog.lookupMaybe(PDFName.of('OutputIntents'), PDFArray);
  const pdfx = intents
    ?.asArray()
    .map((i) => ctx.lookup(i))
    .find((i): i is PDFDict => i instanceof PDFDict && name(i.get(PDFName.of('S'))) === 'GTS_PDFX');
  const dest = pdfx && ctx.lookup(pdfx.get(PDFName.of('DestOutputProfile')));
  const channels =
    dest instanceof PDFStream
      ? (
          dest.dict.get(PDFName.of('N')) as unknown as { asNumber(): number } | undefined
        )?.asNumber()
      : undefined;
  const condition = text(pdfx?.get(PDFName.of('OutputConditionIdentifier')));
  add(
    'output_intent',
    'failure',
    Boolean(pdfx && condition && channels === 4),
    pdfx
      ? `GTS_PDFX, ${condition ?? 'no identifier'}, destination profile with ${channels ?? 'no'} channels`
      : 'no GTS_PDFX output intent',
  );

  // colour spaces, fonts and boxes, page by page
  const spaces = new Set<string>();
  const fonts: { name: string; embedded: boolean }[] = [];
  const boxProblems: string[] = [];
  for (const [n, page] of doc.getPages().entries()) {
    const node = page.node;
    const media = box(node, 'MediaBox', doc);
    const bleed = box(node, 'BleedBox', doc) ?? media;
    const trim = box(node, 'TrimBox', doc);
    if (!media || !bleed || !trim) boxProblems.push(`page ${n + 1}: a box is missing`);
    else if (!inside(trim, bleed) || !inside(bleed, media))
      boxProblems.push(`page ${n + 1}: TrimBox, BleedBox and MediaBox are not nested`);
    const res = node.Resources();
    const cs = res?.lookupMaybe(PDFName.of('ColorSpace'), PDFDict);
    for (const [, v] of cs?.entries() ?? []) for (const s of spaceNames(v, doc)) spaces.add(s);
    const xobjects = res?.lookupMaybe(PDFName.of('XObject'), PDFDict);
    for (const [, ref] of xobjects?.entries() ?? []) {
      const x = ctx.lookup(ref);
      if (!(x instanceof PDFStream)) continue;
      if (x.dict.get(PDFName.of('ImageMask'))?.toString() === 'true') continue;
      for (const s of spaceNames(x.dict.get(PDFName.of('ColorSpace')), doc)) spaces.add(s);
      const smask = ctx.lookup(x.dict.get(PDFName.of('SMask')));
      if (smask instanceof PDFStream)
        for (const s of spaceNames(smask.dict.get(PDFName.of('ColorSpace')), doc))
          spaces.add(`${s} (soft mask)`);
    }
    const content = node.Contents();
    const streams =
      content instanceof PDFArray ? content.asArray().map((r) => ctx.lookup(r)) : [content];
    for (const s of streams) {
      const ops = streamText(s as PDFObject);
      if (/(^|\s)(rg|RG)(\s|$)/.test(ops)) spaces.add('DeviceRGB');
      if (/(^|\s)(g|G)(\s|$)/.test(ops)) spaces.add('DeviceGray');
      if (/(^|\s)(k|K)(\s|$)/.test(ops)) spaces.add('DeviceCMYK');
    }
    const fontDict = res?.lookupMaybe(PDFName.of('Font'), PDFDict);
    for (const [, ref] of fontDict?.entries() ?? []) {
      const f = ctx.lookup(ref, PDFDict);
      const base = name(f.get(PDFName.of('BaseFont'))) ?? '?';
      const descendant = f.lookupMaybe(PDFName.of('DescendantFonts'), PDFArray);
      const target = descendant ? ctx.lookup(descendant.get(0), PDFDict) : f;
      const descriptor = target.lookupMaybe(PDFName.of('FontDescriptor'), PDFDict);
      const embedded = ['FontFile', 'FontFile2', 'FontFile3'].some((k) =>
        descriptor?.has(PDFName.of(k)),
      );
      fonts.push({ name: base, embedded });
    }
  }
  const rgb = [...spaces].filter((s) => RGB_SPACES.has(s.replace(' (soft mask)', '')));
  add(
    'colour_spaces',
    'failure',
    rgb.length === 0,
    rgb.length
      ? `RGB on the page: ${rgb.join(', ')}`
      : `used: ${[...spaces].sort().join(', ') || 'none'}`,
  );
  const unembedded = fonts.filter((f) => !f.embedded).map((f) => f.name);
  add(
    'fonts_embedded',
    'failure',
    unembedded.length === 0,
    unembedded.length
      ? `not embedded: ${unembedded.join(', ')}`
      : `${fonts.length} font(s), all embedded`,
  );
  const untagged = fonts.filter((f) => !/^[A-Z]{6}\+/.test(f.name)).map((f) => f.name);
  add(
    'font_subsets_tagged',
    'warning',
    untagged.length === 0,
    untagged.length
      ? `without a subset tag: ${untagged.join(', ')}`
      : fonts.map((f) => f.name).join(', ') || 'no fonts',
  );
  add(
    'boxes_nested',
    'failure',
    boxProblems.length === 0,
    boxProblems.join('; ') || 'TrimBox within BleedBox within MediaBox on every page',
  );

  // what the renderer placed
  const coverage = Math.round(facts.maxCoverage * 1000) / 10;
  add(
    'ink_coverage',
    'warning',
    coverage <= limits.maxInkCoverage,
    `${coverage}% at most (the output condition takes ${limits.maxInkCoverage}%)`,
  );
  add(
    'image_resolution',
    'warning',
    facts.minDpi === undefined || facts.minDpi >= MIN_DPI,
    facts.minDpi === undefined
      ? 'no images'
      : `${facts.minDpi} dpi at the lowest (${MIN_DPI} wanted)`,
  );
  if (limits.inks) {
    const process = facts.plates.filter((p) => ['Cyan', 'Magenta', 'Yellow', 'Black'].includes(p));
    const spots = facts.plates.filter((p) => !process.includes(p));
    const unknown = spots.filter((s) => !limits.inks!.includes(s));
    add(
      'plates',
      'failure',
      process.length === 0 && unknown.length === 0 && spots.length <= limits.inks.length,
      `${spots.length} spot plate(s) (${spots.join(', ')}) for ${limits.inks.length} ink(s)${process.length ? `; process plates used: ${process.join(', ')}` : ''}`,
    );
  } else add('plates', 'warning', true, `process plates: ${facts.plates.join(', ') || 'none'}`);

  return {
    passed: rules.every((r) => r.result !== 'failure'),
    rules,
    plates: facts.plates,
    maxInkCoverage: coverage,
    minDpi: facts.minDpi,
  };
}

/** A report as an item records it: its minimum resolution only where there was an image. */
export function recordedPreflight(report: PreflightReport) {
  const { passed, rules, plates, maxInkCoverage, minDpi } = report;
  return { passed, rules, plates, maxInkCoverage, ...(minDpi !== undefined ? { minDpi } : {}) };
}

/** The report's warnings as an item lists them (low resolution is there already, per layer). */
export const preflightWarnings = (report: PreflightReport) =>
  report.rules
    .filter((r) => r.result === 'warning' && r.rule !== 'image_resolution')
    .map((r) => `preflight ${r.rule}: ${r.detail}`);
