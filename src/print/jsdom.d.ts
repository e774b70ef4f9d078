// jsdom ships no types, and @types/jsdom brings the DOM library's types into the whole
// project (fetch's BodyInit then refuses Node's Buffers). The service uses one thing of
// it: a window for DOMPurify, in the SVG check.
declare module 'jsdom' {
  export class JSDOM {
    constructor(html?: string);
    readonly window: object;
  }
}
