// The package ships no types: the part of its API used here.
declare module 'perspective-transform' {
  interface PerspectiveTransform {
    /** the homography source -> destination: a, b, c, d, e, f, g, h, 1 (row by row) */
    coeffs: number[];
    /** its inverse, destination -> source */
    coeffsInv: number[];
    transform(x: number, y: number): [number, number];
    transformInverse(x: number, y: number): [number, number];
  }
  /** corners as x0, y0, x1, y1, ...: four of the source, four of the destination */
  export default function PerspT(src: number[], dst: number[]): PerspectiveTransform;
}
