// The operator's brand as index.html carries it (web/scripts/brand.mjs writes the tags; none when
// no brand is configured: then the product is "Ciam" and the page titles are the screens' alone).
// Read from the page's head, so it costs no request and is there at the first render.

export interface Brand {
  name: { 'en-US': string; 'zh-CN': string };
  logo: string | null;
  logoDark: string | null;
}

const tag = (name: string) => (typeof document === 'undefined' ? null : document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? null);

/** The configured brand, or null (today's look). */
export function brand(): Brand | null {
  const en = tag('ciam-brand-name-en');
  if (!en) return null;
  return { name: { 'en-US': en, 'zh-CN': tag('ciam-brand-name-zh') ?? en }, logo: tag('ciam-brand-logo'), logoDark: tag('ciam-brand-logo-dark') };
}

/** The product's name in `locale`: the brand's, else "Ciam". */
export function productName(locale: string): string {
  const b = brand();
  return b ? b.name[locale === 'en-US' ? 'en-US' : 'zh-CN'] : 'Ciam';
}

/** The configured brand's name in `locale`, null without a brand. */
export function brandName(locale: string): string | null {
  return brand() ? productName(locale) : null;
}

/** A page's title with the brand's name after it ("Sign in · Acme ID"); unchanged without a brand. */
export function brandedTitle(text: string, name: string | null): string {
  return name && name !== text ? `${text} · ${name}` : text;
}
