import { describe, expect, it } from 'vitest';
import { checkSvg } from '../../src/print/svg-check.ts';

const svg = (body: string, attrs = '') =>
  `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100"${attrs}>${body}</svg>`;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const problem = async (text: string) => {
  try {
    await checkSvg(Buffer.from(text));
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
};

describe('what an SVG may hold to be printed', () => {
  it('takes what editors write: gradients, clips, text, embedded images, Illustrator entities, Inkscape metadata', async () => {
    for (const text of [
      svg(
        '<defs><linearGradient id="g"><stop offset="0" stop-color="#0a7"/></linearGradient><clipPath id="c"><circle cx="5" cy="5" r="5"/></clipPath></defs><rect width="100" height="100" fill="url(#g)" clip-path="url(\'#c\')"/><text x="1" y="20" style="font-family:DejaVu Sans">Hi &amp; bye</text><use href="#c"/>',
      ),
      svg('<image width="10" height="10" href="data:image/png;base64,iVBORw0KGgo="/>'),
      svg(
        `<image width="10" height="10" href="data:image/svg+xml;base64,${b64(svg('<rect width="1" height="1"/>'))}"/>`,
      ),
      '<?xml version="1.0" encoding="utf-8"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [<!ENTITY ns_svg "http://www.w3.org/2000/svg">]><svg xmlns="&ns_svg;" width="10" height="10"><rect width="10" height="10" fill="#f00"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" width="10" height="10"><sodipodi:namedview id="n" pagecolor="#fff"/><metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></metadata><g inkscape:label="Layer 1"><rect width="10" height="10"/></g></svg>',
      svg('<style><![CDATA[ rect { fill: #c00 } ]]></style><rect width="1" height="1"/>'),
    ])
      expect(await problem(text), text).toBeUndefined();
  });

  it('refuses references outside the file, naming them', async () => {
    const cases: [string, RegExp][] = [
      [
        svg('<image href="http://example.com/a.png" width="1" height="1"/>'),
        /outside itself \(<image href="http:\/\/example.com\/a.png">\)/,
      ],
      [
        svg('<image xlink:href="file:///etc/passwd"/>'),
        /<image xlink:href="file:\/\/\/etc\/passwd">/,
      ],
      [
        svg('<a xlink:href="javascript:alert(1)"><rect width="1" height="1"/></a>'),
        /<a xlink:href="javascript:alert\(1\)">/,
      ],
      [
        svg(
          '<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/etc/passwd" parse="text"/>',
        ),
        /XInclude/,
      ],
      [svg('<style>@import url(http://x/y.css);</style>'), /@import/],
      [
        svg('<style>rect { fill: url(http://x/p.svg#g) }</style>'),
        /url\(http:\/\/x\/p.svg#g\) in <style>/,
      ],
      [
        svg('<rect width="1" height="1" fill="url(https://x/p.svg#g)"/>'),
        /fill="url\(https:\/\/x\/p.svg#g\)" on <rect>/,
      ],
      [`<?xml-stylesheet href="http://x/s.css"?>${svg('')}`, /xml-stylesheet/],
      [
        svg(
          `<image href="data:image/svg+xml;base64,${b64(svg('<image href="http://x/a.png"/>'))}"/>`,
        ),
        /http:\/\/x\/a.png/,
      ],
      [
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&xxe;</text></svg>',
        /external entity/,
      ],
    ];
    for (const [text, expected] of cases) expect(await problem(text), text).toMatch(expected);
  });

  it('refuses what cannot print or costs without bound: filters, HTML, animation', async () => {
    const filter = svg(
      `<filter id="f"><feTurbulence numOctaves="30"/><feGaussianBlur stdDeviation="200"/></filter>${'<rect width="100" height="100" filter="url(#f)"/>'.repeat(10)}`,
    );
    expect(await problem(filter)).toMatch(/uses a filter \(<filter>\)/);
    expect(
      await problem(svg('<rect style="fill:red;filter:blur(30px)" width="1" height="1"/>')),
    ).toMatch(/filter \(style on <rect>\)/);
    expect(await problem(svg('<style>rect{filter:blur(3px)}</style>'))).toMatch(
      /CSS filter property/,
    );
    expect(
      await problem(
        svg('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>'),
      ),
    ).toMatch(/foreignObject/);
    expect(
      await problem(svg('<rect width="1" height="1"><animate attributeName="x" to="5"/></rect>')),
    ).toMatch(/animated \(<animate>\)/);
    expect(await problem(svg('<g>'.repeat(300) + '</g>'.repeat(300)))).toMatch(
      /more than 256 deep/,
    );
    expect(await problem(svg('<rect/>'.repeat(50_001)))).toMatch(/more than 50000 elements/);
    const laughs = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa">${['b', 'c', 'd', 'e', 'f', 'g'].map((e, i) => `<!ENTITY ${e} "${`&${'abcdef'[i]};`.repeat(10)}">`).join('')}]>${svg('<text>&g;</text>')}`;
    expect(await problem(laughs)).toMatch(/an entity \(b\) that holds markup or other entities/);
    const hidden = `<!DOCTYPE svg [<!ENTITY img "<image href='http://x/a.png'/>">]>${svg('&img;')}`;
    expect(await problem(hidden)).toMatch(/an entity \(img\) that holds markup/);
    // the entities of XML itself, as often as a text needs
    expect(await problem(svg(`<text>${'&amp;&lt;'.repeat(20_000)}</text>`))).toBeUndefined();
  });

  it('refuses scripts and event handlers, found by DOMPurify', async () => {
    expect(await problem(svg('<script>alert(1)</script>'))).toMatch(/<script>/);
    expect(await problem(svg('<rect width="1" height="1"/>', ' onload="alert(1)"'))).toMatch(
      /active content \(onload="alert\(1\)" on <svg>\)/,
    );
    expect(await problem(svg('<rect width="1" height="1" onclick="x()"/>'))).toMatch(/onclick/);
  });

  it('says in plain words what is wrong with a file that is no SVG', async () => {
    expect(await problem(svg('<rect>'))).toMatch(
      /^the SVG is not well-formed XML \(line 1: Expected closing tag 'rect' instead of closing tag 'svg'\)$/,
    );
    expect(await problem('<html><body/></html>')).toMatch(/root element is not <svg>/);
    expect(await problem('not xml at all')).toMatch(/not well-formed XML/);
  });
});
