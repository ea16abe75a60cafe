// The one lazy chunk of "My company" (/{lang}/personal/company) and the invitation landing
// (/{lang}/org/invitation): one chunk for both keeps the entry's table of lazy files (and the
// sign-in's first download with it) as small as one screen would. It brings the `org` message
// bundle; the router wraps it in the personal bundle (the organizations' reasons, the navigation).
// It imports nothing of features/personal: a module shared with the personal centre's pages
// would split their common chunk into more files, listed in the entry.
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
