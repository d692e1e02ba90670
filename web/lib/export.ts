/**
 * Exports from the page: the diagram on screen as one standalone SVG (and a PNG drawn
 * from it), and text files (Markdown, Mermaid, JSON) as downloads.
 *
 * The page's SVGs take their colours and fonts from CSS (custom properties, scoped
 * classes), which a standalone file does not have, so every exported element carries its
 * computed style inline. The panels are stacked top to bottom, each under its heading.
 */

/** The presentation properties an exported SVG element keeps. */
const STYLE_PROPS = [
  'fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity', 'opacity',
  'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor', 'dominant-baseline', 'visibility', 'display',
  'paint-order', 'stroke-linejoin', 'stroke-linecap', 'letter-spacing',
] as const;

const SVG_NS = 'http://www.w3.org/2000/svg';

function inlineStyles(source: Element, target: Element): void {
  const cs = getComputedStyle(source);
  // A paint server computes to an absolute URL of this page (url("http://…/#hatch")); the
  // file needs the bare fragment.
  const value = (p: string) => cs.getPropertyValue(p).replace(/url\("?[^"#)]*#([^")]+)"?\)/g, 'url(#$1)');
  const style = STYLE_PROPS.map((p) => `${p}:${value(p)}`).filter((d) => !d.endsWith(':')).join(';');
  if (style) target.setAttribute('style', style);
  // Presentation attributes naming a custom property mean nothing outside the page.
  for (const a of ['fill', 'stroke']) if (target.getAttribute(a)?.startsWith('var(')) target.removeAttribute(a);
  const s = source.children;
  const t = target.children;
  for (let i = 0; i < s.length && i < t.length; i++) inlineStyles(s[i], t[i]);
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export interface DiagramPart {
  /** The panel's heading, drawn above its SVG. */
  title: string;
  svg: SVGSVGElement;
}

/** The export's fonts: the title and the panels' headings. */
const TITLE_FONT = { family: 'system-ui, sans-serif', size: 15, weight: 700, line: 20 };
const HEAD_FONT = { family: 'system-ui, sans-serif', size: 12, weight: 600, line: 16 };
type Font = typeof TITLE_FONT;

let measureCtx: CanvasRenderingContext2D | null | undefined;
/** The drawn width of `text` in `font` (a canvas measures it; a generous estimate without one). */
function textWidth(text: string, font: Font): number {
  if (measureCtx === undefined) measureCtx = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  if (!measureCtx) return text.length * font.size * 0.62;
  measureCtx.font = `${font.weight} ${font.size}px ${font.family}`;
  // A little room: the file may be drawn with another font of the family.
  return measureCtx.measureText(text).width * 1.06 + 2;
}

/** `text` in lines no wider than `width` (a word longer than the line is split). */
function wrapText(text: string, width: number, font: Font): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const next = line === '' ? word : `${line} ${word}`;
    if (textWidth(next, font) <= width) { line = next; continue; }
    if (line !== '') lines.push(line);
    line = word;
    while (textWidth(line, font) > width && line.length > 1) {
      let k = line.length - 1;
      while (k > 1 && textWidth(line.slice(0, k), font) > width) k--;
      lines.push(line.slice(0, k));
      line = line.slice(k);
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

function textLines(lines: string[], y: number, font: Font, fill: string): string[] {
  return lines.map((l, i) => `<text x="0" y="${y + i * font.line}" font-family="${font.family}" font-size="${font.size}" font-weight="${font.weight}" fill="${fill}">${escapeXml(l)}</text>`);
}

/**
 * One standalone SVG document of the given panels, stacked, with a title on top. The title
 * and the headings wrap to the picture's width (measured, so none is cut, whatever the
 * window's width). Pattern ids are made unique per panel so two panels' hatches do not collide.
 */
export function diagramSvg(title: string, parts: DiagramPart[]): string {
  // Each panel at its own size (its width and height attributes): a squeezed or zoomed panel
  // is drawn smaller on screen than its content's coordinates.
  const size = (svg: SVGSVGElement, a: 'width' | 'height') => Number(svg.getAttribute(a)) || svg.getBoundingClientRect()[a] || 0;
  const width = Math.ceil(Math.max(480, ...parts.map((p) => size(p.svg, 'width'))));
  const titleLines = wrapText(title, width, TITLE_FONT);
  let y = 14 + titleLines.length * TITLE_FONT.line;
  const body: string[] = [...textLines(titleLines, 20, TITLE_FONT, '#1d232a')];
  parts.forEach((p, i) => {
    const h = Math.ceil(size(p.svg, 'height'));
    const clone = p.svg.cloneNode(true) as SVGSVGElement;
    inlineStyles(p.svg, clone);
    let markup = new XMLSerializer().serializeToString(clone);
    // Unique ids per part: id="hatch" -> id="p1-hatch", url(#hatch) -> url(#p1-hatch).
    markup = markup.replace(/\bid="([^"]+)"/g, `id="p${i}-$1"`).replace(/url\(#([^)]+)\)/g, `url(#p${i}-$1)`);
    const head = wrapText(p.title.toUpperCase(), width, HEAD_FONT);
    body.push(...textLines(head, y + 12, HEAD_FONT, '#5b6570'));
    const top = y + 18 + (head.length - 1) * HEAD_FONT.line;
    body.push(markup.replace(/^<svg\b/, `<svg x="0" y="${top}"`));
    y = top + h + 16;
  });
  const height = y;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="${SVG_NS}" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    ...body,
    `</svg>`,
  ].join('\n');
}

/** Draws an SVG document into a PNG at `scale` (2 = sharp on slides). */
export async function svgToPng(svgText: string, scale = 2): Promise<Blob> {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const root = doc.documentElement;
  const width = Number(root.getAttribute('width'));
  const height = Number(root.getAttribute('height'));
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.decoding = 'sync';
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the SVG could not be drawn'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(width * scale);
    canvas.height = Math.ceil(height * scale);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas');
    ctx.scale(scale, scale);
    ctx.drawImage(img, 0, 0, width, height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Saves a blob under `name` through a temporary link. */
export function download(name: string, blob: Blob): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function downloadText(name: string, text: string, type: string): void {
  download(name, new Blob([text], { type }));
}
