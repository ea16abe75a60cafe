// Sign-in inside a host page's frame (spec §2): the password form only, no links out of the
// frame. Refusals show in the form (lib/api.ts posts them to the host when asked); success is
// told to the host at the serviceUrl's own origin, never to '*'.
import { useState } from 'react';
import { defineMessages, FormattedMessage } from 'react-intl';
import { useLocation } from 'react-router';
import { useTitle } from '../../components/use-title';
import { titles } from '../../i18n/titles';
import { embeddedInfo, originOf } from '../../lib/redirect';
import * as session from '../../lib/session';
import { PasswordForm } from './password-form';

const m = defineMessages({
  done: { id: 'embedded.done', defaultMessage: 'You are signed in.' },
});

export default function EmbeddedSignIn() {
  useTitle(titles.signin);
  const { pathname, search } = useLocation();
  const [done, setDone] = useState(false);
  const onSignedIn = (_account: string, token: string) => {
    session.start(token);
    const origin = originOf(embeddedInfo(pathname, search).serviceUrl);
    if (origin && window.parent !== window) window.parent.postMessage({ type: 'ciam:signed-in' }, origin);
    setDone(true);
  };
  return (
    <div className="card">
      <h1>
        <FormattedMessage {...titles.signin} />
      </h1>
      {done ? (
        <p role="status">
          <FormattedMessage {...m.done} />
        </p>
      ) : (
        <PasswordForm inline onSignedIn={onSignedIn} />
      )}
    </div>
  );
}
