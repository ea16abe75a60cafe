// Loads precompiled catalogues. `core` (everything shown before a screen's own chunk) loads at
// boot, one language only; a screen with long texts loads its bundle with its chunk.
import type { MessageFormatElement } from 'react-intl';
import type { Locale } from './locale';

export type Messages = Record<string, MessageFormatElement[]>;
export type Bundle = 'docs' | 'personal' | 'partner';

type Loader = () => Promise<{ default: unknown }>;

const CORE: Record<Locale, Loader> = {
  'en-US': () => import('./compiled/en-US.json'),
  'zh-CN': () => import('./compiled/zh-CN.json'),
};

const BUNDLES: Record<Locale, Record<Bundle, Loader>> = {
  'en-US': {
    docs: () => import('./compiled/en-US.docs.json'),
    personal: () => import('./compiled/en-US.personal.json'),
    partner: () => import('./compiled/en-US.partner.json'),
  },
  'zh-CN': {
    docs: () => import('./compiled/zh-CN.docs.json'),
    personal: () => import('./compiled/zh-CN.personal.json'),
    partner: () => import('./compiled/zh-CN.partner.json'),
  },
};

export async function loadMessages(locale: Locale): Promise<Messages> {
  return (await CORE[locale]()).default as Messages;
}

export async function loadBundle(locale: Locale, bundle: Bundle): Promise<Messages> {
  return (await BUNDLES[locale][bundle]()).default as Messages;
}
