// Log out (the personal pages' button and the deactivation page): ends the session on the
// server (best effort: an expired token is already gone) and here, then goes to sign-in.
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import { paths } from '../config/paths';
import { asLocale } from '../i18n/locale';
import { logout as endSession } from '../lib/account-api';
import * as session from '../lib/session';

export function useLogout() {
  const intl = useIntl();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const logout = async () => {
    setBusy(true);
    await endSession();
    session.clear();
    navigate(paths.signin(asLocale(intl.locale) ?? 'zh-CN'), { replace: true });
  };
  return { busy, logout };
}

