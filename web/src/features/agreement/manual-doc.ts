import { defineMessages } from 'react-intl';
import type { Doc } from './doc';

const m = defineMessages({
  intro: {
    id: 'manual.intro',
    defaultMessage: 'One Ciam account signs you in to all of our customer applications. This manual covers the everyday tasks.',
  },
  signupH: { id: 'manual.signup.heading', defaultMessage: 'Signing up' },
  signup1: {
    id: 'manual.signup.p1',
    defaultMessage:
      'Choose Sign up on the sign-in page. Enter a username, your company name, a mainland China mobile number or an email address, and your country or region.',
  },
  signup2: {
    id: 'manual.signup.p2',
    defaultMessage:
      'Request a verification code (you can ask for a new one after 60 seconds) and enter it. Set a password of at least 8 characters with upper and lower case letters, digits and special characters, accept the terms, and submit.',
  },
  signinH: { id: 'manual.signin.heading', defaultMessage: 'Signing in' },
  signinPassword: { id: 'manual.signin.password', defaultMessage: 'With a password: enter your email or mobile number and your password.' },
  signinCode: { id: 'manual.signin.code', defaultMessage: 'With a code: ask for a verification code sent to your email or mobile number and enter it.' },
  signinStaff: {
    id: 'manual.signin.staff',
    defaultMessage: 'Internal staff sign in with their company email; the first time, set a password through Forgot password.',
  },
  idleH: { id: 'manual.idle.heading', defaultMessage: 'Staying signed in' },
  idle1: {
    id: 'manual.idle.p1',
    defaultMessage:
      'After 30 minutes without activity you are signed out and asked to sign in again; a session also ends 12 hours after sign-in. On a shared computer, use Log out in the Personal Center when you are done.',
  },
  findH: { id: 'manual.find.heading', defaultMessage: 'Finding your password' },
  find1: {
    id: 'manual.find.p1',
    defaultMessage:
      'Choose Forgot password on the sign-in page, enter your email or mobile number and the code we send, then set a new password. This signs you out everywhere and also unlocks a locked account.',
  },
  langH: { id: 'manual.language.heading', defaultMessage: 'Changing the language' },
  lang1: {
    id: 'manual.language.p1',
    defaultMessage: 'The button at the top right switches between 简体中文 and English. Your choice is remembered on this device.',
  },
  totpH: { id: 'manual.totp.heading', defaultMessage: 'Two-factor authentication' },
  totp1: {
    id: 'manual.totp.p1',
    defaultMessage:
      'In the Security Center you will be able to add an authenticator app: scan the QR code or type the key, confirm with a 6-digit code, and keep the 8-digit backup codes somewhere safe.',
  },
  totp2: {
    id: 'manual.totp.p2',
    defaultMessage: 'After that, sign-in asks for the code from the app, or a backup code if you do not have your phone. Each backup code works once.',
  },
});

export const manual: Doc = {
  intro: [m.intro],
  sections: [
    { heading: m.signupH, paras: [m.signup1, m.signup2] },
    { heading: m.signinH, items: [m.signinPassword, m.signinCode, m.signinStaff] },
    { heading: m.idleH, paras: [m.idle1] },
    { heading: m.findH, paras: [m.find1] },
    { heading: m.langH, paras: [m.lang1] },
    { heading: m.totpH, paras: [m.totp1, m.totp2] },
  ],
};
