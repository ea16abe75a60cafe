// Labels shared by the auth screens.
import { defineMessages } from 'react-intl';

export const labels = defineMessages({
  account: { id: 'auth.account', defaultMessage: 'E-mail or mobile number' },
  password: { id: 'auth.password', defaultMessage: 'Password' },
  confirmPassword: { id: 'auth.confirmPassword', defaultMessage: 'Confirm password' },
  backToSignin: { id: 'auth.backToSignin', defaultMessage: 'Back to sign in' },
});
