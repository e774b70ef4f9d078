/** PDF points per millimetre. */
export const PT_PER_MM = 72 / 25.4;
export const BLEED_MM = 3;
export const SLUG_MM = 15;
/** Raster content is placed at up to this resolution. */
export const TARGET_DPI = 300;
/** Below this an image layer is a warning on the order item. */
export const MIN_DPI = 150;
export const BARCODE_DPI = 600;
