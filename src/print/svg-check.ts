import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { ImageProblem } from './errors.ts';

/**
 * What an SVG may hold to be printed as the customer saw it, checked before it is
 * rasterised. The SVG is parsed as XML (fast-xml-parser: entities expanded, external
 * ones refused), its elements walked, and its active content looked for by DOMPurify.
 * Refused, each named:
 * - references to anything outside the file (images, stylesheets, fonts, XInclude,
 *   `xml-stylesheet`): the renderer does not fetch them, so the print would lack them;
 * - filters (`<filter>`, `fe*`, CSS `filter`): their cost grows with their parameters
 *   without bound (feTurbulence octaves, blur radii), and a print has no use for them
 *   that a flattened image cannot serve;
 * - what does not print: `<foreignObject>` (HTML), animations, scripts and event
 *   handlers (DOMPurify's judgement, the maintained sanitizer's, not a pattern of ours);
 * - more than MAX_ELEMENTS elements or nesting deeper than MAX_DEPTH.
 * A reference inside the file (`#id`) and an embedded raster image (`data:image/png`,
 * jpeg, gif, webp) are fine; an embedded SVG is checked the same way.
 */
export const MAX_ELEMENTS = 50_000;
export const MAX_DEPTH = 256;

type Node = Record<string, unknown> & { ':@'?: Record<string, string> };

const PARSE = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  // the five entities of XML itself (&amp; ...) may appear as often as a text needs;
  // those of the DOCTYPE are plain text (doctypeProblem), so expanding them is cheap
  processEntities: { enabled: true, maxTotalExpansions: 10_000_000, maxExpandedLength: 1_000_000 },
  htmlEntities: false,
  maxNestedTags: MAX_DEPTH,
  allowBooleanAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
} as const;

const ANIMATION = new Set(['animate', 'animateMotion', 'animateTransform', 'animateColor', 'set']);
const NOT_PRINTED = new Map([
  ['foreignObject', 'HTML inside the SVG (<foreignObject>) is not printed'],
  ['script', 'the SVG holds a script (<script>); scripts are not allowed'],
  ['iframe', 'the SVG holds a web page (<iframe>)'],
  ['video', 'the SVG holds a video'],
  ['audio', 'the SVG holds sound'],
  ['canvas', 'the SVG holds a canvas'],
]);
const ACTIVE_ELEMENTS = new Set(['script', 'iframe', 'object', 'embed', 'handler', 'listener']);
const EMBEDDED_RASTER = /^data:image\/(?:png|jpeg|jpg|gif|webp);base64,/i;
const EMBEDDED_SVG = /^data:image\/svg\+xml(;base64)?,/i;
const LINK_ATTRIBUTES = new Set(['href', 'xlink:href', 'src']);

const local = (name: string) => name.slice(name.indexOf(':') + 1);
const short = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);

/** Every `url(...)` in CSS text or an attribute value. */
function urlsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/url\(\s*(['"]?)(.*?)\1\s*\)/gi)) out.push(m[2]!.trim());
  return out;
}

/**
 * Why a reference found in the SVG cannot be printed, or undefined when it can; `where`
 * shows it as it stands in the SVG.
 */
function referenceProblem(
  where: (target: string) => string,
  target: string,
  depth: number,
): string | undefined {
  const t = target.trim();
  if (t === '' || t.startsWith('#') || EMBEDDED_RASTER.test(t)) return undefined;
  const svg = EMBEDDED_SVG.exec(t);
  if (svg) {
    if (depth > 2) return 'the SVG nests embedded SVGs more than two deep';
    const comma = t.indexOf(',');
    const body = svg[1]
      ? Buffer.from(t.slice(comma + 1), 'base64')
      : Buffer.from(decodeURIComponent(t.slice(comma + 1)));
    return structureProblem(body, depth + 1);
  }
  return `the SVG refers to a file outside itself (${where(short(t))}), which is not printed: embed what it shows in the SVG`;
}

/**
 * Entities a DOCTYPE may declare: plain text, such as the namespace URIs Illustrator
 * writes. One that holds markup or refers to other entities would be expanded by the
 * renderer into elements or text this check never saw (and a chain of them is the
 * billion-laughs attack); a parameter entity or an external one is refused too.
 */
function doctypeProblem(text: string): string | undefined {
  const subset = /<!DOCTYPE[^[>]*\[([\s\S]*?)\]\s*>/i.exec(text)?.[1];
  if (!subset) return undefined;
  for (const m of subset.matchAll(
    /<!ENTITY\s+(%\s*)?(\S+)\s+(?:("[^"]*"|'[^']*')|(SYSTEM|PUBLIC))/gi,
  )) {
    const [, parameter, name, value, external] = m;
    if (external)
      return 'the SVG declares an external entity (<!ENTITY ... SYSTEM>), which would read a file: not allowed';
    if (parameter || /[<&%]/.test(value ?? ''))
      return `the SVG declares an entity (${name}) that holds markup or other entities: only plain text entities are allowed`;
  }
  return undefined;
}

/** The first problem of an SVG's structure (everything but active content). */
function structureProblem(bytes: Buffer, depth = 0): string | undefined {
  const text = bytes.toString('utf8');
  const doctype = doctypeProblem(text);
  if (doctype) return doctype;
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: true });
  if (valid !== true)
    return `the SVG is not well-formed XML (line ${valid.err.line}: ${valid.err.msg.replace(/\s*\(opened[^)]*\)/, '').replace(/\.$/, '')})`;
  let tree: Node[];
  try {
    tree = new XMLParser(PARSE).parse(text) as Node[];
  } catch (err) {
    const message = (err as Error).message;
    if (/external entit/i.test(message))
      return 'the SVG declares an external entity (<!ENTITY ... SYSTEM>), which would read a file: not allowed';
    if (/nested tags/i.test(message))
      return `the SVG nests its elements more than ${MAX_DEPTH} deep`;
    if (/entit/i.test(message)) return `the SVG's entities cannot be expanded (${message})`;
    return `the SVG cannot be read as XML (${message})`;
  }
  const root = tree.find((n) => !Object.keys(n).some((k) => k.startsWith('?') || k === '#text'));
  if (!root || local(Object.keys(root).find((k) => k !== ':@')!) !== 'svg')
    return 'the file is not an SVG (its root element is not <svg>)';

  let elements = 0;
  const stack: { node: Node; depth: number }[] = tree.map((node) => ({ node, depth: 0 }));
  while (stack.length > 0) {
    const { node, depth: level } = stack.pop()!;
    const name = Object.keys(node).find((k) => k !== ':@')!;
    const attrs = node[':@'] ?? {};
    if (name === '#text' || name === '#comment') continue;
    if (name.startsWith('?')) {
      if (name === '?xml-stylesheet')
        return `the SVG loads a stylesheet from outside itself (<?xml-stylesheet href="${short(attrs.href ?? '')}"?>): put its styles inside the SVG`;
      continue;
    }
    if (++elements > MAX_ELEMENTS)
      return `the SVG has more than ${MAX_ELEMENTS} elements: simplify it or send it as an image`;
    if (level > MAX_DEPTH) return `the SVG nests its elements more than ${MAX_DEPTH} deep`;
    const tag = local(name);
    if (name.startsWith('xi:') || tag === 'include')
      return 'the SVG includes another file (XInclude), which is not printed: put its content inside the SVG';
    if (tag === 'filter' || /^fe[A-Z]/.test(tag))
      return `the SVG uses a filter (<${tag}>), which cannot be printed at a bounded cost: flatten the effect into an image`;
    if (ANIMATION.has(tag))
      return `the SVG is animated (<${tag}>); a print shows one still picture: remove the animation`;
    const notPrinted = NOT_PRINTED.get(tag);
    if (notPrinted) return notPrinted;
    for (const [attr, value] of Object.entries(attrs)) {
      if (attr === 'filter' || (attr === 'style' && /(^|[;\s])filter\s*:/i.test(value)))
        return `the SVG uses a filter (${attr} on <${tag}>), which cannot be printed at a bounded cost: flatten the effect into an image`;
      if (LINK_ATTRIBUTES.has(attr)) {
        const problem = referenceProblem((t) => `<${tag} ${attr}="${t}">`, value, depth);
        if (problem) return problem;
      }
      for (const url of urlsIn(value)) {
        const problem = referenceProblem((t) => `${attr}="url(${t})" on <${tag}>`, url, depth);
        if (problem) return problem;
      }
    }
    const children = (node[name] ?? []) as Node[];
    if (tag === 'style') {
      const css = children.map((c) => String(c['#text'] ?? '')).join('');
      if (/@import/i.test(css))
        return 'the SVG imports a stylesheet from outside itself (@import): put its styles inside the SVG';
      if (/(^|[;{\s])filter\s*:/i.test(css))
        return 'the SVG uses a filter (the CSS filter property), which cannot be printed at a bounded cost: flatten the effect into an image';
      for (const url of urlsIn(css)) {
        const problem = referenceProblem((t) => `url(${t}) in <style>`, url, depth);
        if (problem) return problem;
      }
    }
    for (let i = children.length - 1; i >= 0; i--)
      stack.push({ node: children[i]!, depth: level + 1 });
  }
  return undefined;
}

/** DOMPurify, on a DOM of jsdom's: made once per process, at the first SVG. */
let purifier: Promise<{ sanitize(text: string): string[] }> | undefined;
function purify() {
  purifier ??= (async () => {
    const [{ JSDOM }, { default: createDOMPurify }] = await Promise.all([
      import('jsdom'),
      import('dompurify'),
    ]);
    const dompurify = createDOMPurify(
      new JSDOM('').window as Parameters<typeof createDOMPurify>[0],
    );
    return {
      /** what DOMPurify removes as active content: elements and attributes, named */
      sanitize(text: string): string[] {
        // read as HTML reads inline SVG: DOMPurify's lists are of HTML's lower-case names
        dompurify.sanitize(text, { USE_PROFILES: { svg: true, svgFilters: true } });
        return dompurify.removed.flatMap((r) => {
          // of the elements it removes, those that run code; the others (editors'
          // metadata, <use>, which DOMPurify distrusts for the outside references
          // refused above) print or are ignored by the renderer
          if ('element' in r) {
            const n = (r.element as { nodeName: string }).nodeName.toLowerCase();
            return ACTIVE_ELEMENTS.has(n) ? [`<${n}>`] : [];
          }
          const { attribute: a, from } = r as {
            attribute: { name: string; value: string } | null;
            from: { nodeName: string };
          };
          if (!a) return [];
          const risky = /^on/i.test(a.name) || LINK_ATTRIBUTES.has(a.name);
          return risky ? [`${a.name}="${short(a.value)}" on <${from.nodeName.toLowerCase()}>`] : [];
        });
      },
    };
  })();
  return purifier;
}

/**
 * Throws an ImageProblem naming the first thing in an SVG that keeps it from printing as
 * seen (see above); returns when the SVG may be rasterised.
 */
export async function checkSvg(bytes: Buffer): Promise<void> {
  const problem = structureProblem(bytes);
  if (problem) throw new ImageProblem(problem);
  // the text as parsed (entities expanded, no DOCTYPE), so the DOM parser reads what librsvg will
  const tree = new XMLParser(PARSE).parse(bytes.toString('utf8'));
  const expanded = new XMLBuilder({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    suppressEmptyNode: true,
  }).build(tree) as string;
  const active = (await purify()).sanitize(expanded);
  if (active.length > 0)
    throw new ImageProblem(
      `the SVG holds active content (${active.slice(0, 3).join(', ')}${active.length > 3 ? ', ...' : ''}): scripts, event handlers and script links are not allowed`,
    );
}
