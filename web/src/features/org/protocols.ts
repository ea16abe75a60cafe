// The protocols of an organization's own sign-in connections and their settings, as the API takes
// them (docs/api.md, the settings table; functions/core/src/org/connections.rs): one table read by
// the form of "My company" (connection-form.tsx) and by the console's (admin/org-connections.tsx).
// Each setting's key is the API's name for it, so a refusal naming it (INVALID_PARAMETER with
// `field`) is said at its field. The secret's label is the platform's word for it.
import { defineMessages, type MessageDescriptor } from 'react-intl';

const m = defineMessages({
  oidc: { id: 'org.conn.protocol.oidc', defaultMessage: 'OpenID Connect' },
  wecom: { id: 'org.conn.protocol.wecom', defaultMessage: 'WeCom' },
  dingtalk: { id: 'org.conn.protocol.dingtalk', defaultMessage: 'DingTalk' },
  feishu: { id: 'org.conn.protocol.feishu', defaultMessage: 'Feishu / Lark' },
  issuer: { id: 'org.conn.form.issuer', defaultMessage: 'Issuer' },
  issuerHint: { id: 'org.conn.form.issuerHint', defaultMessage: 'The https address of your identity provider, e.g. https://login.acme.com (its discovery document is read from there).' },
  issuerEmpty: { id: 'org.conn.form.issuerEmpty', defaultMessage: "Give the identity provider's issuer, an https address" },
  clientId: { id: 'org.conn.form.clientId', defaultMessage: 'Client ID' },
  clientIdEmpty: { id: 'org.conn.form.clientIdEmpty', defaultMessage: 'Give the client ID your identity provider issued' },
  scopes: { id: 'org.conn.form.scopes', defaultMessage: 'Scopes (optional)' },
  scopesHint: { id: 'org.conn.form.scopesHint', defaultMessage: 'Separated by spaces; openid email profile when empty.' },
  mfaAcr: { id: 'org.conn.form.mfaAcr', defaultMessage: 'ACR of two-factor authentication (optional)' },
  mfaAcrHint: { id: 'org.conn.form.mfaAcrHint', defaultMessage: 'The acr value by which your identity provider says the person passed two-factor authentication; then Ciam does not ask for its own.' },
  wecomCorpId: { id: 'org.conn.form.wecomCorpId', defaultMessage: 'CorpID' },
  wecomCorpIdHint: { id: 'org.conn.form.wecomCorpIdHint', defaultMessage: "Your company's CorpID, shown in WeCom's management page under My company (ww...). Only people of this corp may sign in." },
  corpIdEmpty: { id: 'org.conn.form.corpIdEmpty', defaultMessage: "Give your company's CorpID" },
  agentId: { id: 'org.conn.form.agentId', defaultMessage: 'AgentID' },
  agentIdHint: { id: 'org.conn.form.agentIdHint', defaultMessage: "The AgentID of your company's self-built app (digits)." },
  agentIdBad: { id: 'org.conn.form.agentIdBad', defaultMessage: "Give the self-built app's AgentID: 1 to 20 digits" },
  dingClientId: { id: 'org.conn.form.dingClientId', defaultMessage: 'Client ID (AppKey)' },
  dingClientIdHint: { id: 'org.conn.form.dingClientIdHint', defaultMessage: "The app's Client ID, shown in DingTalk's developer console." },
  dingClientIdEmpty: { id: 'org.conn.form.dingClientIdEmpty', defaultMessage: "Give the app's Client ID" },
  dingCorpId: { id: 'org.conn.form.dingCorpId', defaultMessage: 'CorpId' },
  dingCorpIdHint: { id: 'org.conn.form.dingCorpIdHint', defaultMessage: "Your organization's CorpId (ding...). Only people of this organization may sign in." },
  appId: { id: 'org.conn.form.appId', defaultMessage: 'App ID' },
  appIdHint: { id: 'org.conn.form.appIdHint', defaultMessage: "The app's App ID (cli_...), shown in Feishu's developer console." },
  appIdEmpty: { id: 'org.conn.form.appIdEmpty', defaultMessage: "Give the app's App ID" },
  tenantKey: { id: 'org.conn.form.tenantKey', defaultMessage: 'Tenant key' },
  tenantKeyHint: { id: 'org.conn.form.tenantKeyHint', defaultMessage: "Your company's tenant_key. Only people of this tenant may sign in." },
  tenantKeyEmpty: { id: 'org.conn.form.tenantKeyEmpty', defaultMessage: "Give your company's tenant key" },
  region: { id: 'org.conn.form.region', defaultMessage: 'Edition' },
  regionDefault: { id: 'org.conn.form.regionDefault', defaultMessage: "This deployment's" },
  regionFeishu: { id: 'org.conn.form.regionFeishu', defaultMessage: 'Feishu (China)' },
  regionLark: { id: 'org.conn.form.regionLark', defaultMessage: 'Lark (international)' },
  secret: { id: 'org.conn.form.secret', defaultMessage: 'Client secret' },
  secretEmpty: { id: 'org.conn.form.secretEmpty', defaultMessage: 'Give the client secret' },
  corpSecret: { id: 'org.conn.form.corpSecret', defaultMessage: "The app's Secret (corpsecret)" },
  corpSecretEmpty: { id: 'org.conn.form.corpSecretEmpty', defaultMessage: "Give the self-built app's Secret" },
  dingSecret: { id: 'org.conn.form.dingSecret', defaultMessage: 'Client secret (AppSecret)' },
  appSecret: { id: 'org.conn.form.appSecret', defaultMessage: 'App secret' },
  appSecretEmpty: { id: 'org.conn.form.appSecretEmpty', defaultMessage: "Give the app's App Secret" },
  unreachable: { id: 'org.conn.unreachable', defaultMessage: "{name}'s identity provider could not be reached: check the issuer, then test again." },
});

/** A test sign-in whose identity provider did not answer (SERVICE_UNAVAILABLE), in "My company"'s and the console's words. */
export const unreachable = m.unreachable;

/** The protocols the API accepts. */
export const PROTOCOLS = ['oidc', 'wecom', 'dingtalk', 'feishu'] as const;
export type Protocol = (typeof PROTOCOLS)[number];
export const protocolWords: Record<Protocol, MessageDescriptor> = { oidc: m.oidc, wecom: m.wecom, dingtalk: m.dingtalk, feishu: m.feishu };
export const isProtocol = (p: string): p is Protocol => (PROTOCOLS as readonly string[]).includes(p);

/** One setting of a protocol: the API's key, its words, and the check made before sending. */
export interface Setting {
  key: SettingKey;
  label: MessageDescriptor;
  hint?: MessageDescriptor;
  /** Said when it is empty (or not of `pattern`); none: optional. */
  empty?: MessageDescriptor;
  pattern?: RegExp;
  type?: 'url';
  inputMode?: 'url' | 'numeric';
  /** A choice among these values ('' is the deployment's default). */
  choices?: { value: string; label: MessageDescriptor }[];
}

export const SETTING_KEYS = ['issuer', 'clientId', 'scopes', 'mfaAcr', 'corpId', 'agentId', 'appId', 'tenantKey', 'region'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

export const SETTINGS: Record<Protocol, Setting[]> = {
  oidc: [
    { key: 'issuer', label: m.issuer, hint: m.issuerHint, empty: m.issuerEmpty, type: 'url', inputMode: 'url' },
    { key: 'clientId', label: m.clientId, empty: m.clientIdEmpty },
    { key: 'scopes', label: m.scopes, hint: m.scopesHint },
    { key: 'mfaAcr', label: m.mfaAcr, hint: m.mfaAcrHint },
  ],
  wecom: [
    { key: 'corpId', label: m.wecomCorpId, hint: m.wecomCorpIdHint, empty: m.corpIdEmpty },
    { key: 'agentId', label: m.agentId, hint: m.agentIdHint, empty: m.agentIdBad, pattern: /^\d{1,20}$/, inputMode: 'numeric' },
  ],
  dingtalk: [
    { key: 'clientId', label: m.dingClientId, hint: m.dingClientIdHint, empty: m.dingClientIdEmpty },
    { key: 'corpId', label: m.dingCorpId, hint: m.dingCorpIdHint, empty: m.corpIdEmpty },
  ],
  feishu: [
    { key: 'appId', label: m.appId, hint: m.appIdHint, empty: m.appIdEmpty },
    { key: 'tenantKey', label: m.tenantKey, hint: m.tenantKeyHint, empty: m.tenantKeyEmpty },
    {
      key: 'region', label: m.region,
      choices: [{ value: '', label: m.regionDefault }, { value: 'feishu', label: m.regionFeishu }, { value: 'lark', label: m.regionLark }],
    },
  ],
};

/** The secret's label and its "give it" words, per protocol. */
export const SECRET: Record<Protocol, { label: MessageDescriptor; empty: MessageDescriptor }> = {
  oidc: { label: m.secret, empty: m.secretEmpty },
  wecom: { label: m.corpSecret, empty: m.corpSecretEmpty },
  dingtalk: { label: m.dingSecret, empty: m.secretEmpty },
  feishu: { label: m.appSecret, empty: m.appSecretEmpty },
};

const settingsOfProtocol = (p: string) => SETTINGS[isProtocol(p) ? p : 'oidc'];

/** Every setting's value, from a connection's settings ('' for those it has not). */
export const settingValues = (settings?: Record<string, string | undefined> | null): Record<SettingKey, string> =>
  Object.fromEntries(SETTING_KEYS.map((k) => [k, settings?.[k] ?? ''])) as Record<SettingKey, string>;

/** The settings to send for a protocol: its own keys, trimmed, the empty optional ones left out. */
export function settingsOf(protocol: string, values: Record<SettingKey, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of settingsOfProtocol(protocol)) {
    const v = values[s.key].trim();
    if (v || s.empty) out[s.key] = v;
  }
  return out;
}

/** The problem of each setting before sending: a required one empty or not of its pattern. */
export function settingProblems(protocol: string, values: Record<SettingKey, string>): Partial<Record<SettingKey, MessageDescriptor>> {
  const out: Partial<Record<SettingKey, MessageDescriptor>> = {};
  for (const s of settingsOfProtocol(protocol)) {
    const v = values[s.key].trim();
    if (s.empty && (!v || (s.pattern && !s.pattern.test(v)))) out[s.key] = s.empty;
  }
  return out;
}

/** What a connection is pinned to, shown in the lists: the issuer, the corp or the tenant. */
export const pinnedOf = (c: { protocol: string; settings: Record<string, string | undefined> }): string | null =>
  (c.protocol === 'wecom' || c.protocol === 'dingtalk' ? c.settings.corpId : c.protocol === 'feishu' ? c.settings.tenantKey : c.settings.issuer) ?? null;

/** The app (client) a connection signs in with, shown beside what it is pinned to. */
export const clientOf = (c: { protocol: string; settings: Record<string, string | undefined> }): string | null =>
  (c.protocol === 'wecom' ? c.settings.agentId : c.protocol === 'feishu' ? c.settings.appId : c.settings.clientId) ?? null;
