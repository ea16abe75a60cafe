// The one lazy chunk of "My company" (/{lang}/personal/company) and the invitation landing
// (/{lang}/org/invitation): one chunk for both keeps the entry's table of lazy files (and the
// sign-in's first download with it) as small as one screen would. It brings the `org` message
// bundle; the router wraps it in the personal bundle (the organizations' reasons, the navigation).
// It imports nothing of features/personal, and of the components the personal pages share it takes
// whole chunks (use-logout and use-user-info travel with form-error): a module shared with only
// part of a common chunk would split that chunk into more files, each named in the entry and in
// the preload script (the sign-in's first download).
import { useLocation } from 'react-router';
import { WithMessages } from '../../components/with-messages';
import Company from './company';
import Invitation from './invitation';
import { loadOrg } from './messages';

export default function OrgScreens() {
  const { pathname } = useLocation();
  return (
    <WithMessages bundle="org" load={loadOrg}>
      {/\/org\/invitation$/.test(pathname) ? <Invitation /> : <Company />}
    </WithMessages>
  );
}
