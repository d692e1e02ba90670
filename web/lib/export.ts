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

/**
 * One standalone SVG document of the given panels, stacked, with a title line on top.
 * Pattern ids are made unique per panel so two panels' hatches do not collide.
 */
export function diagramSvg(title: string, parts: DiagramPart[]): string {
  const width = Math.ceil(Math.max(480, ...parts.map((p) => p.svg.getBoundingClientRect().width || Number(p.svg.getAttribute('width')) || 0)));
  let y = 34;
  const body: string[] = [];
  parts.forEach((p, i) => {
    const h = Math.ceil(p.svg.getBoundingClientRect().height || Number(p.svg.getAttribute('height')) || 0);
    const clone = p.svg.cloneNode(true) as SVGSVGElement;
    inlineStyles(p.svg, clone);
    let markup = new XMLSerializer().serializeToString(clone);
    // Unique ids per part: id="hatch" -> id="p1-hatch", url(#hatch) -> url(#p1-hatch).
    markup = markup.replace(/\bid="([^"]+)"/g, `id="p${i}-$1"`).replace(/url\(#([^)]+)\)/g, `url(#p${i}-$1)`);
    markup = markup.replace(/^<svg\b/, `<svg x="0" y="${y + 18}"`);
    body.push(`<text x="0" y="${y + 12}" font-family="system-ui, sans-serif" font-size="12" font-weight="600" fill="#5b6570">${escapeXml(p.title.toUpperCase())}</text>`);
    body.push(markup);
    y += 18 + h + 16;
  });
  const height = y;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="${SVG_NS}" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="0" y="20" font-family="system-ui, sans-serif" font-size="15" font-weight="700" fill="#1d232a">${escapeXml(title)}</text>`,
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
