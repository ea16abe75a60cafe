import { defineMessages } from 'react-intl';
import type { Doc } from './doc';

const m = defineMessages({
  intro: {
    id: 'privacy.intro',
    defaultMessage:
      'Ciam is the customer account portal of our smart-manufacturing services. This policy explains which personal information the portal handles, why, for how long, and what you can do about it. It applies to customers and to internal staff who sign in here.',
  },
  collectH: { id: 'privacy.collect.heading', defaultMessage: 'What we collect' },
  collectAccount: {
    id: 'privacy.collect.account',
    defaultMessage: 'Account: your username, email address or mobile number, and your password, which we store only as a one-way hash.',
  },
  collectCompany: {
    id: 'privacy.collect.company',
    defaultMessage: 'Company: company name, position, address and country or region.',
  },
  collectContact: {
    id: 'privacy.collect.contact',
    defaultMessage: 'Contact: your display name and the email or mobile number we send verification codes and service notices to.',
  },
  collectSignIn: {
    id: 'privacy.collect.signin',
    defaultMessage: 'Sign-in records: when you sign in and out, the applications you sign in to, and failed attempts.',
  },
  whyH: { id: 'privacy.why.heading', defaultMessage: 'Why we use it' },
  why1: {
    id: 'privacy.why.p1',
    defaultMessage:
      'We use this information to create and protect your account, to sign you in to our applications, to confirm your identity with verification codes, and to support you and your company.',
  },
  why2: {
    id: 'privacy.why.p2',
    defaultMessage:
      'Sign-in records help us stop misuse: repeated failed attempts lock an account for a short time. We send marketing messages only if you opt in, and you can opt out at any time.',
  },
  keepH: { id: 'privacy.keep.heading', defaultMessage: 'How long we keep it' },
  keep1: {
    id: 'privacy.keep.p1',
    defaultMessage:
      'Verification codes expire after 10 minutes. A session ends after 30 minutes without activity and at the latest 12 hours after you sign in.',
  },
  keep2: {
    id: 'privacy.keep.p2',
    defaultMessage:
      'We keep your account data while your account is active. When you deactivate it, we delete or anonymise your personal data, except records the law requires us to keep.',
  },
  rightsH: { id: 'privacy.rights.heading', defaultMessage: 'Your rights' },
  rightsAccess: {
    id: 'privacy.rights.access',
    defaultMessage: 'Access: the Personal Center shows the information we hold about your account.',
  },
  rightsCorrect: {
    id: 'privacy.rights.correct',
    defaultMessage: 'Correction: you can update your company, position, address, display name and country or region there at any time.',
  },
  rightsDeactivate: {
    id: 'privacy.rights.deactivate',
    defaultMessage: 'Deactivation: you can close your account from the Security Center; internal staff accounts are closed through the company.',
  },
  rightsContact: {
    id: 'privacy.rights.contact',
    defaultMessage: 'For any other request, contact your account manager or our customer service.',
  },
  storageH: { id: 'privacy.storage.heading', defaultMessage: 'Cookies and local storage' },
  storage1: {
    id: 'privacy.storage.p1',
    defaultMessage: 'The portal uses no advertising or tracking cookies. It keeps these entries in your browser’s local storage:',
  },
  keyToken: { id: 'privacy.storage.token', defaultMessage: 'your session token; removed when you sign out.' },
  keyLast: { id: 'privacy.storage.lastAction', defaultMessage: 'the time of your last action, used to sign you out after 30 minutes of inactivity.' },
  keyLocale: { id: 'privacy.storage.locale', defaultMessage: 'the language you chose.' },
  keyCountry: { id: 'privacy.storage.country', defaultMessage: 'your country or region, as detected, to prefill forms.' },
  keyAccounts: { id: 'privacy.storage.accounts', defaultMessage: 'accounts recently used on this device, so you can pick one at sign-in.' },
  keyAccountNames: { id: 'privacy.storage.accountNames', defaultMessage: 'the names of those accounts, shown beside them when you pick one.' },
  keyOrigin: { id: 'privacy.storage.origin', defaultMessage: 'the page to return to after you sign in.' },
  storage2: {
    id: 'privacy.storage.p2',
    defaultMessage: 'You can remove these entries in your browser settings at any time; without them you will need to sign in again.',
  },
  changesH: { id: 'privacy.changes.heading', defaultMessage: 'Changes to this policy' },
  changes1: {
    id: 'privacy.changes.p1',
    defaultMessage: 'We announce material changes in the portal before they take effect.',
  },
});

export const privacy: Doc = {
  intro: [m.intro],
  sections: [
    { heading: m.collectH, items: [m.collectAccount, m.collectCompany, m.collectContact, m.collectSignIn] },
    { heading: m.whyH, paras: [m.why1, m.why2] },
    { heading: m.keepH, paras: [m.keep1, m.keep2] },
    { heading: m.rightsH, items: [m.rightsAccess, m.rightsCorrect, m.rightsDeactivate], after: [m.rightsContact] },
    {
      heading: m.storageH,
      paras: [m.storage1],
      keys: [
        { key: 'ciam_token', text: m.keyToken },
        { key: 'lastActionTime', text: m.keyLast },
        { key: 'umi_locale', text: m.keyLocale },
        { key: 'country', text: m.keyCountry },
        { key: 'ciam_accounts', text: m.keyAccounts },
        { key: 'ciam_account_names', text: m.keyAccountNames },
        { key: 'ciam_origin_url', text: m.keyOrigin },
      ],
      after: [m.storage2],
    },
    { heading: m.changesH, paras: [m.changes1] },
  ],
};
