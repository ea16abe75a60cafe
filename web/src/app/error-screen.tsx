// The route error screen: a friendly, localised message with a reload and a way back to sign-in;
// the error itself is reported (lib/report-errors.ts). `Catch` is the boundary that shows it.
import { Component, type ReactNode, useEffect } from 'react';
import { defineMessages, useIntl } from 'react-intl';
import { normalize } from '../i18n/locale';
import { reportError } from '../lib/report-errors';
import { paths } from '../config/paths';
import { useTitle } from '../components/use-title';

const m = defineMessages({
  title: { id: 'failure.title', defaultMessage: 'Something went wrong' },
  text: { id: 'failure.text', defaultMessage: 'This page could not be shown. Reload it, or go back to sign-in.' },
  reload: { id: 'failure.reload', defaultMessage: 'Reload' },
  signin: { id: 'failure.signin', defaultMessage: 'Back to sign-in' },
});

export function ErrorScreen({ error }: { error: unknown }) {
  const intl = useIntl();
  useEffect(() => reportError('route', error), [error]);
  // A screen without a title of its own: the default tagline (spec §2), not the failed screen's.
  useTitle(null);
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

interface CatchProps {
  children: ReactNode;
  /** What to show instead of `children` once one of them threw while rendering. */
  fallback: (error: unknown) => ReactNode;
  /** A new value clears the error (the screen's place: the path). */
  resetKey?: string;
}
interface CatchState {
  error: { value: unknown } | null;
  key?: string;
}

/** An error boundary: an error while rendering `children` shows `fallback` until `resetKey` changes. */
export class Catch extends Component<CatchProps, CatchState> {
  state: CatchState = { error: null, key: this.props.resetKey };
  static getDerivedStateFromError(value: unknown): Partial<CatchState> {
    return { error: { value } };
  }
  static getDerivedStateFromProps(props: CatchProps, state: CatchState): Partial<CatchState> | null {
    return props.resetKey !== state.key ? { error: null, key: props.resetKey } : null;
  }
  render() {
    return this.state.error ? this.props.fallback(this.state.error.value) : this.props.children;
  }
}
