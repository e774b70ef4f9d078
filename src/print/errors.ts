/** The design cannot be printed as it is: rendering again will not help. */
export class RenderError extends Error {
  override name = 'RenderError';
}
