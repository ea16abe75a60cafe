// What a screen tells the sign-in screen it sends the user to (router state `notice`): shown in
// the sign-in card above its form, not in a toast, so it never covers the heading or the submit
// button and it goes with the sign-in screen (docs/web-experience.md "Toasts and notices").
import { defineMessages } from 'react-intl';
import { common } from './common';

const m = defineMessages({
  registered: { id: 'register.done', defaultMessage: 'Your account has been created. Please sign in.' },
  reset: { id: 'find.done', defaultMessage: 'Your password has been reset. Please sign in.' },
  deactivated: { id: 'notice.deactivated', defaultMessage: 'Your account has been deactivated' },
});

export const notices = { ...m, expired: common.sessionExpired };
export type Notice = keyof typeof notices;

export function isNotice(x: unknown): x is Notice {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(notices, x);
}
