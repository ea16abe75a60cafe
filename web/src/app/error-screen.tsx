// The route error screen (react-router `errorElement`): a friendly, localised message with a
// reload and a way back to sign-in; the error itself is reported (lib/report-errors.ts).
import { useEffect } from 'react';
import { defineMessages, useIntl } from 'react-intl';
import { useRouteError } from 'react-router';
import { normalize } from '../i18n/locale';
import { reportError } from '../lib/report-errors';
import { paths } from '../config/paths';

const m = defineMessages({
  title: { id: 'failure.title', defaultMessage: 'Something went wrong' },
  text: { id: 'failure.text', defaultMessage: 'This page could not be shown. Reload it, or go back to sign-in.' },
  reload: { id: 'failure.reload', defaultMessage: 'Reload' },
  signin: { id: 'failure.signin', defaultMessage: 'Back to sign-in' },
});

export function ErrorScreen() {
  const error = useRouteError();
  const intl = useIntl();
  useEffect(() => reportError('route', error), [error]);
  return (
    <div className="card" role="alert" data-testid="error-screen">
      <h1>{intl.formatMessage(m.title)}</h1>
      <p>{intl.formatMessage(m.text)}</p>
      <div className="actions">
        <button type="button" onClick={() => location.reload()}>
          {intl.formatMessage(m.reload)}
        </button>
        <a href={paths.signin(normalize(intl.locale))}>
          {intl.formatMessage(m.signin)}
        </a>
      </div>
    </div>
  );
}
