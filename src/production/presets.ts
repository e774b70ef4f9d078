import type { Media } from '../domain/batch/events.ts';

/** Press sheets and rolls a batch can name instead of giving sizes. */
export const MEDIA_PRESETS = {
  SRA3: { kind: 'sheet', widthMm: 320, heightMm: 450 },
  A3: { kind: 'sheet', widthMm: 297, heightMm: 420 },
  '12x18in': { kind: 'sheet', widthMm: 304.8, heightMm: 457.2 },
  '13x19in': { kind: 'sheet', widthMm: 330.2, heightMm: 482.6 },
  'roll-560mm': { kind: 'roll', widthMm: 560, heightMm: 5000 },
  'dtf-22in': { kind: 'roll', widthMm: 558.8, heightMm: 5000 },
} as const satisfies Record<string, Omit<Media, 'preset'>>;
export type MediaPreset = keyof typeof MEDIA_PRESETS;
export const PRESET_NAMES = Object.keys(MEDIA_PRESETS) as [MediaPreset, ...MediaPreset[]];

export const mediaOfPreset = (preset: MediaPreset): Media => ({ ...MEDIA_PRESETS[preset], preset });

/** Below the pieces on every sheet: the slug with the batch, the sheet's number and its barcode. */
export const SHEET_SLUG_MM = 12;
