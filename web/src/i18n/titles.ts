// Page titles (spec §2): translation keys, with the default tagline as the fallback.
import { defineMessages } from 'react-intl';

export const titles = defineMessages({
  register: { id: 'register.title', defaultMessage: 'Sign up' },
  // The consent screen is titled for what it asks (issue 34 item 7); with the app's name once known
  // (`authorize.titleApp`, features/auth/authorize.tsx).
  authorize: { id: 'authorize.title', defaultMessage: 'Allow an application to use your account' },
  signin: { id: 'signin.title', defaultMessage: 'Sign in' },
  info: { id: 'info.title', defaultMessage: 'Personal Center' },
  secure: { id: 'secure.title', defaultMessage: 'Security Center' },
  privacy: { id: 'privacy.title', defaultMessage: 'Privacy policy' },
  protocols: { id: 'protocols.title', defaultMessage: 'Service agreement' },
  manual: { id: 'manual.title', defaultMessage: 'User manual' },
  find: { id: 'find.title', defaultMessage: 'Retrieve Password' },
  logout: { id: 'logout.title', defaultMessage: 'Deactivate account' },
  signout: { id: 'signout.title', defaultMessage: 'Signed out' },
});
