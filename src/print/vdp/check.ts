import type { SealedDataset } from '../../datasets/sealed-file.ts';
import { type Design, fillFields, layerFields, layerName } from '../../domain/project/design.ts';
import { codeProblem } from '../code-fit.ts';
import { fitText, missingGlyphs } from '../text-fit.ts';

export const PROBLEM_CODES = [
  'missing_field',
  'overflow',
  'missing_glyph',
  'code_data',
  'unknown_image',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];
export interface RowProblem {
  /** the row (1 = the first after a CSV's header); 0 for the data set as a whole */
  row: number;
  field: string;
  code: ProblemCode;
  detail: string;
}
export interface DatasetCheck {
  ok: boolean;
  rows: number;
  /** the first problems, in row order (at most `limit`) */
  problems: RowProblem[];
  /** how many there are in all */
  problemCount: number;
}

type Layer = Design['areas'][number]['layers'][number];
const codePoint = (ch: string) =>
  `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * Every row against the design, as the renderer will set it: each field the design
 * names has a value; each text's characters are in the font and it fits its box (at its
 * smallest size where it may shrink); each code can hold its data at its size; each image
 * a row names is in the label's image store. Measured, not drawn: 100,000 rows in a few
 * seconds. Details give sizes and code points, never a row's text.
 */
export function checkRows(
  design: Pick<Design, 'areas'>,
  dataset: SealedDataset,
  images: ReadonlySet<string>,
  limit = 1000,
): DatasetCheck {
  const problems: RowProblem[] = [];
  let count = 0;
  const report = (p: RowProblem) => {
    count++;
    if (problems.length < limit) problems.push(p);
  };
  const index = new Map(dataset.fields.map((f, i) => [f, i]));
  const layers: { layer: Layer; name: string; fields: string[] }[] = [];
  for (const area of design.areas)
    for (const [li, layer] of area.layers.entries()) {
      const fields = layerFields(layer);
      if (fields.length > 0) layers.push({ layer, name: layerName(area.printArea, li), fields });
    }
  // a field the data set does not have at all is one problem, not one a row
  const absent = new Set<string>();
  for (const { fields } of layers)
    for (const f of fields)
      if (!index.has(f) && !absent.has(f)) {
        absent.add(f);
        report({
          row: 0,
          field: f,
          code: 'missing_field',
          detail: `the data set has no field ${f}`,
        });
      }
  if (absent.size > 0) return { ok: false, rows: dataset.rows, problems, problemCount: count };

  for (const [row, values] of dataset.each()) {
    const value = (f: string) => values[index.get(f)!] ?? '';
    for (const { layer, name, fields } of layers) {
      const empty = fields.filter((f) => value(f) === '');
      if (empty.length > 0) {
        for (const f of empty)
          report({ row, field: f, code: 'missing_field', detail: `${name}: ${f} is empty` });
        continue;
      }
      if (layer.type === 'image') {
        const image = value(fields[0]!);
        if (!images.has(image))
          report({
            row,
            field: fields[0]!,
            code: 'unknown_image',
            detail: `${name}: the label has no image of that name`,
          });
        continue;
      }
      const text = fillFields(layer.type === 'text' ? layer.text : layer.data, value);
      if (layer.type === 'code') {
        const problem = codeProblem(layer, text);
        if (problem)
          report({ row, field: fields[0]!, code: 'code_data', detail: `${name}: ${problem}` });
        continue;
      }
      const missing = missingGlyphs(text);
      if (missing.length > 0) {
        const field = fields.find((f) => missingGlyphs(value(f)).length > 0) ?? fields[0]!;
        report({
          row,
          field,
          code: 'missing_glyph',
          detail: `${name}: DejaVu Sans cannot draw ${missing
            .slice(0, 5)
            .map(codePoint)
            .join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`,
        });
        continue;
      }
      const fitted = fitText(layer, text);
      if ('overflow' in fitted)
        report({ row, field: fields[0]!, code: 'overflow', detail: `${name}: ${fitted.overflow}` });
    }
  }
  return { ok: count === 0, rows: dataset.rows, problems, problemCount: count };
}
