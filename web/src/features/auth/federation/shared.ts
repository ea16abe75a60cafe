// Sign-in through a federation provider other than staff (WeChat, WeCom, DingTalk, Feishu:
// docs/federation-design.md §5.2): its words, the start address, the tab's bind and the reading
// of the way back (`<name>Code`, `<name>Error`, `<name>Pending`; routes/federation.rs).
import { defineMessages, type IntlShape, type MessageDescriptor } from 'react-intl';
import { BASE } from '../../../lib/api-url';
import type { Locale } from '../../../i18n/locale';
import { keepQuery } from '../../../lib/redirect';

export const fm = defineMessages({
  row: { id: 'federation.row', defaultMessage: 'Or sign in with' },
  wechat: { id: 'federation.wechat', defaultMessage: 'WeChat' },
  wecom: { id: 'federation.wecom', defaultMessage: 'WeCom' },
  dingtalk: { id: 'federation.dingtalk', defaultMessage: 'DingTalk' },
  feishu: { id: 'federation.feishu', defaultMessage: 'Feishu' },
  lark: { id: 'federation.lark', defaultMessage: 'Lark' },
  org: { id: 'federation.org', defaultMessage: 'your company account' },
  orgNotPermitted: { id: 'federation.orgNotPermitted', defaultMessage: 'Your company lets only its members sign in this way. Ask its administrator to add you.' },
  redeeming: { id: 'federation.redeeming', defaultMessage: 'Signing you in with {provider}…' },
  cancelled: { id: 'federation.cancelled', defaultMessage: 'You cancelled at {provider}. Try again or choose another way.' },
  notPermitted: { id: 'federation.notPermitted', defaultMessage: 'Your {provider} account may not use this app; ask your administrator.' },
  snapshot: {
    id: 'federation.snapshot',
    defaultMessage: 'You are viewing a preview of this page. Tap 使用完整服务 (Use full service) at the bottom, then sign in with {provider} again.',
  },
  openTitle: { id: 'federation.openTitle', defaultMessage: 'Open this page in your browser to sign in with {provider}' },
  openStep1: { id: 'federation.openStep1', defaultMessage: 'Tap ··· at the top right.' },
  openStep2: { id: 'federation.openStep2', defaultMessage: 'Choose Open in Browser.' },
  openStep3: { id: 'federation.openStep3', defaultMessage: 'Sign in with {provider} there.' },
  copy: { id: 'federation.copy', defaultMessage: 'Copy link' },
  copied: { id: 'federation.copied', defaultMessage: 'Link copied. Paste it in your browser.' },
  copyFailed: { id: 'federation.copyFailed', defaultMessage: 'Copy this link and paste it in your browser:' },
  link: { id: 'federation.link', defaultMessage: 'Link to this page' },
  failed: { id: 'federation.failed', defaultMessage: 'Sign-in with {provider} failed. Please try again.' },
  down: { id: 'federation.down', defaultMessage: '{provider} did not answer in time. Try again later or choose another way.' },
  unavailable: { id: 'federation.unavailable', defaultMessage: 'Sign-in with {provider} is not available. Choose another way.' },
  expired: { id: 'federation.expired', defaultMessage: 'This sign-in with {provider} has expired. Please start again.' },
  orgPhoneIntro: {
    id: 'federation.orgPhoneIntro',
    defaultMessage: "{company}'s {platform} vouched for you; prove your phone to finish. Enter your mainland China mobile number: if an account has it, that account signs in with {company} from now on; if not, you create one next.",
  },
  orgPhoneIntroUnnamed: {
    id: 'federation.orgPhoneIntroUnnamed',
    defaultMessage: 'Your company vouched for you; prove your phone to finish. Enter your mainland China mobile number: if an account has it, that account signs in with your company from now on; if not, you create one next.',
  },
});

/** The providers whose names are translated; any other is shown as the server names it. */
// `org`: an organization's own sign-in (routes/org_signin.rs), its way back `orgCode`/`orgError`.
const NAMES: Record<string, MessageDescriptor> = { wechat: fm.wechat, wecom: fm.wecom, dingtalk: fm.dingtalk, feishu: fm.feishu, org: fm.org };

/** The names a platform goes by in some deployments (GET /auth/federation's `brand`: Feishu as Lark). */
const BRANDS: Record<string, MessageDescriptor> = { lark: fm.lark };

export const providerName = (intl: IntlShape, name: string, brand?: string | null) =>
  brand && Object.hasOwn(BRANDS, brand) ? intl.formatMessage(BRANDS[brand]!) : Object.hasOwn(NAMES, name) ? intl.formatMessage(NAMES[name]!) : name;

/** The one-time parameters of a provider's way back: handled here, never carried over. */
// (`orgName`, beside an organization's refusal, is never shown: words from the address.)
export const returnParams = (name: string) => [`${name}Code`, `${name}Error`, `${name}Pending`, ...(name === 'org' ? ['orgName'] : [])];

/** What the address brings back from a provider (never staff: staff-signin.tsx), or null. */
export type Back = { provider: string; kind: 'Code' | 'Error' | 'Pending'; value: string };

/**
 * Only a provider of NAMES: a partner's own parameter that happens to end the same way
 * (`inviteCode`) is left alone, kept in the query as any other.
 */
export function readBack(search: string): Back | null {
  for (const [key, value] of new URLSearchParams(search)) {
    const hit = /^([a-z]{1,32})(Code|Error|Pending)$/.exec(key);
    if (hit && Object.hasOwn(NAMES, hit[1]!)) return { provider: hit[1]!, kind: hit[2] as Back['kind'], value };
  }
  return null;
}

/** Where a provider's button goes: the server's start, with the language, this tab's bind hash and the query to return to. */
export function startUrl(name: string, lang: Locale, search: string, hash: string): string {
  const query = keepQuery(search, { drop: returnParams(name) }).replace(/^\?/, '');
  return `${BASE}/auth/${encodeURIComponent(name)}/start?${new URLSearchParams({ lang, bindHash: hash, query })}`;
}

/** Where this tab keeps its bind while it is at the provider and until the sign-in ends. */
export const FED_BIND_KEY = 'ciam_fed_bind';

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/=+$/, '')
    .replace(/[+/]/g, (c) => (c === '+' ? '-' : '_'));

// As staff-signin.tsx's (not imported from it: that chunk is loaded on its own).
const bindHash = async (bind: string) => base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(bind))));

/** Where this tab keeps `<provider>:<brand>` of the sign-in it started, so the way back names it alike (Lark). */
const FED_BRAND_KEY = 'ciam_fed_brand';

/**
 * A new random bind (256 bits) kept in this tab's sessionStorage, with the brand of the provider
 * it leaves for (when the server named one); answers the bind's SHA-256 (base64url).
 */
export async function newFedBind(name = '', brand?: string | null): Promise<string> {
  const bind = base64url(crypto.getRandomValues(new Uint8Array(32)));
  sessionStorage.setItem(FED_BIND_KEY, bind);
  if (brand) sessionStorage.setItem(FED_BRAND_KEY, `${name}:${brand}`);
  else sessionStorage.removeItem(FED_BRAND_KEY);
  return bindHash(bind);
}

/** The brand `provider` went by when this tab left for it, if any. */
export function readBrand(provider: string): string | undefined {
  try {
    const kept = sessionStorage.getItem(FED_BRAND_KEY) ?? '';
    return kept.startsWith(`${provider}:`) ? kept.slice(provider.length + 1) : undefined;
  } catch {
    return undefined;
  }
}

/** Where this tab keeps the company whose sign-in it left for (org-signin.tsx), so its phone proof names it. */
export const FED_ORG_KEY = 'ciam_fed_org';

/** The company this tab left for: its names by language and its connection's protocol, or null. */
export function readOrg(): { name: Record<string, string>; protocol: string } | null {
  try {
    const kept = JSON.parse(sessionStorage.getItem(FED_ORG_KEY) ?? 'null') as unknown;
    if (!kept || typeof kept !== 'object') return null;
    const { name, protocol } = kept as { name?: unknown; protocol?: unknown };
    if (!name || typeof name !== 'object' || typeof protocol !== 'string') return null;
    return { name: name as Record<string, string>, protocol };
  } catch {
    return null;
  }
}

/** This tab's bind (kept: a pending sign-in uses it for the phone and the sign-up); null when none. */
export function readBind(): string | null {
  try {
    return sessionStorage.getItem(FED_BIND_KEY);
  } catch {
    return null;
  }
}

/** Forgets the bind: the sign-in ended (signed in, or refused for good). */
export function dropBind(): void {
  try {
    sessionStorage.removeItem(FED_BIND_KEY);
  } catch {
    // Nothing kept.
  }
}

/** Whether this page runs in WeChat's own browser (its user agent), not WeCom's. */
export const inWechat = (ua = navigator.userAgent) => /MicroMessenger/i.test(ua) && !/wxwork/i.test(ua);
