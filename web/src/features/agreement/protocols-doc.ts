import { defineMessages } from 'react-intl';
import type { Doc } from './doc';

const m = defineMessages({
  intro: {
    id: 'protocols.intro',
    defaultMessage:
      'These terms govern your use of your Ciam account and of the applications you reach through it. By creating an account or signing in, you accept them.',
  },
  accountH: { id: 'protocols.account.heading', defaultMessage: 'Your account' },
  account1: {
    id: 'protocols.account.p1',
    defaultMessage: 'Keep your password and verification codes to yourself. You are responsible for what is done with your account.',
  },
  account2: {
    id: 'protocols.account.p2',
    defaultMessage:
      'Give accurate information about yourself and your company, and keep it up to date. If you think someone else has used your account, change your password at once and tell us.',
  },
  useH: { id: 'protocols.use.heading', defaultMessage: 'Acceptable use' },
  useIntro: { id: 'protocols.use.intro', defaultMessage: 'You must not:' },
  useLaw: { id: 'protocols.use.law', defaultMessage: 'use the service for anything unlawful;' },
  useOthers: { id: 'protocols.use.others', defaultMessage: 'try to get into other people’s accounts or pass yourself off as someone else;' },
  useAuto: {
    id: 'protocols.use.automation',
    defaultMessage: 'create accounts or sign in by automated means, or work around the captcha and the limits on codes and attempts;',
  },
  useHarm: { id: 'protocols.use.harm', defaultMessage: 'disrupt the service or probe it for weaknesses without our written permission.' },
  suspendH: { id: 'protocols.suspend.heading', defaultMessage: 'Suspension and termination' },
  suspend1: {
    id: 'protocols.suspend.p1',
    defaultMessage:
      'We may lock or suspend an account that breaks these terms or shows signs of misuse; for example, repeated failed sign-ins lock an account for 15 minutes.',
  },
  suspend2: {
    id: 'protocols.suspend.p2',
    defaultMessage: 'You may stop using the service and deactivate your account at any time from the Security Center.',
  },
  liabilityH: { id: 'protocols.liability.heading', defaultMessage: 'Liability' },
  liability1: {
    id: 'protocols.liability.p1',
    defaultMessage:
      'We work to keep the service available and secure but cannot promise it will be uninterrupted. As far as the law allows, we are not liable for indirect or consequential loss arising from its use.',
  },
  liability2: {
    id: 'protocols.liability.p2',
    defaultMessage: 'Nothing in these terms limits a liability that the law does not allow to be limited.',
  },
  termsH: { id: 'protocols.terms.heading', defaultMessage: 'Governing terms' },
  terms1: {
    id: 'protocols.terms.p1',
    defaultMessage:
      'These terms, the privacy policy and any contract between your company and us form the whole agreement. Where they conflict, your company’s contract prevails, and its governing law and courts apply.',
  },
  terms2: {
    id: 'protocols.terms.p2',
    defaultMessage: 'We may update these terms and will announce changes in the portal first; using the service afterwards means you accept them.',
  },
});

export const protocols: Doc = {
  intro: [m.intro],
  sections: [
    { heading: m.accountH, paras: [m.account1, m.account2] },
    { heading: m.useH, paras: [m.useIntro], items: [m.useLaw, m.useOthers, m.useAuto, m.useHarm] },
    { heading: m.suspendH, paras: [m.suspend1, m.suspend2] },
    { heading: m.liabilityH, paras: [m.liability1, m.liability2] },
    { heading: m.termsH, paras: [m.terms1, m.terms2] },
  ],
};
