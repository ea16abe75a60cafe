// Which cell served this page, and where the other is (docs/multi-region.md §14): two tags in
// index.html's head that the upload (AWS) or `ciam serve --cell --other-cell` writes. Without
// the other cell's tag there is one cell only and nothing names a service.
export type CellName = 'global' | 'cn';

export interface Cells {
  here: CellName;
  other: CellName;
  /** The other cell's origin, e.g. https://id.example.cn. */
  origin: string;
}

const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content.trim() ?? '';

/** The cells, read from the page's head; null for one cell alone (or tags that do not parse). */
export function cells(): Cells | null {
  const here = meta('ciam-cell');
  const origin = meta('ciam-other-cell');
  // An origin only: the link may not become a script or another path.
  if ((here !== 'global' && here !== 'cn') || !/^https?:\/\/[\w.-]+(:\d+)?$/.test(origin)) return null;
  return { here, other: here === 'cn' ? 'global' : 'cn', origin };
}

/** The same page of the other cell (its path, without this cell's query: a partner's app is registered per cell). */
export const otherPage = (c: Cells, path: string) => c.origin + path;
