// The message bundle of "My company" and the invitation landing (`org` in scripts/i18n.mjs), its
// loader in their chunk rather than in the entry's load.ts, so the sign-in's first download
// carries nothing of it (as features/auth/signup-messages.ts does for sign-up).
import type { Messages } from '../../i18n/load';
import type { Locale } from '../../i18n/locale';

const LOAD: Record<Locale, () => Promise<{ default: unknown }>> = {
  'en-US': () => import('../../i18n/compiled/en-US.org.json'),
  'zh-CN': () => import('../../i18n/compiled/zh-CN.org.json'),
};

export async function loadOrg(locale: Locale): Promise<Messages> {
  return (await LOAD[locale]()).default as Messages;
}
