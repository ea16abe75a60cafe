// The way out of the account lock (VERIFICATION_ATTEMPT_CODE_LIMIT): a password reset by code
// clears the lock on the server at once (functions/core/src/lock.rs), so the lock's alert links
// to the reset, carrying the account the user typed (the reset screen starts with it).
import { FormattedMessage, defineMessages, useIntl } from 'react-intl';
import { Link, useLocation } from 'react-router';
import { paths } from '../config/paths';
import { normalize } from '../i18n/locale';
import { keepQuery } from '../lib/redirect';

const m = defineMessages({
  reset: { id: 'lock.reset', defaultMessage: 'Reset your password to unlock it now' },
});

/**
 * `top`: in a partner's frame, the reset opens in a new top-level window (nothing navigates the
 * frame); the partner's query goes along, so the user ends at the partner after the reset.
 */
export function LockReset({ account, onGo, top }: { account?: string; onGo?: () => void; top?: boolean }) {
  const lang = normalize(useIntl().locale);
  const { search } = useLocation();
  return (
    <Link to={paths.findPassword(lang) + keepQuery(search)} state={{ account: account?.trim() ?? '' }} onClick={onGo}
      target={top ? '_blank' : undefined} rel="noopener" data-testid="lock-reset">
      <FormattedMessage {...m.reset} />
    </Link>
  );
}
