// The sign-up page's own message bundle (`signup` in scripts/i18n.mjs: the username said as it is
// typed), its loader in the sign-up chunk rather than in the entry's load.ts, so the sign-in's
// first download carries nothing of it.
import type { Messages } from '../../i18n/load';
import type { Locale } from '../../i18n/locale';

const LOAD: Record<Locale, () => Promise<{ default: unknown }>> = {
  'en-US': () => import('../../i18n/compiled/en-US.signup.json'),
  'zh-CN': () => import('../../i18n/compiled/zh-CN.signup.json'),
};

export async function loadSignup(locale: Locale): Promise<Messages> {
  return (await LOAD[locale]()).default as Messages;
}
