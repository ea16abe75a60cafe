// What every console screen shares: the operator (GET /admin/me), `guard` (a call that answers
// REAUTH_REQUIRED gets the fresh-proof dialog and is sent again), and the small pieces the
// screens draw alike.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { type ApiError, errorText, type Result } from '../../lib/api';
import { asLocale, type Locale } from '../../i18n/locale';
import { type Me, may, type Role } from './api';

export interface Console {
  me: Me;
  /** Runs `call`; on REAUTH_REQUIRED asks for a fresh proof and runs it once more (null: cancelled). */
  guard: <T>(call: () => Promise<Result<T>>) => Promise<Result<T> | null>;
}

export const ConsoleContext = createContext<Console | null>(null);

export function useConsole(): Console {
  const c = useContext(ConsoleContext);
  if (!c) throw new Error('useConsole outside the console');
  return c;
}

/** Whether the operator's role includes `need`. */
export function useMay(need: Role): boolean {
  return may(useConsole().me.role, need);
}

export function useLang(): Locale {
  return asLocale(useIntl().locale) ?? 'zh-CN';
}

const m = defineMessages({
  loading: { id: 'admin.loading', defaultMessage: 'Loading…' },
  failed: { id: 'admin.loadFailed', defaultMessage: 'This could not be loaded.' },
  cancelled: { id: 'admin.proofCancelled', defaultMessage: 'Confirm it is you to see this page.' },
  retry: { id: 'admin.retry', defaultMessage: 'Try again' },
});

type Loaded<T> = { state: 'loading' } | { state: 'ready'; data: T } | { state: 'failed'; error: ApiError | null };

/**
 * Loads `call` (through guard) when the screen opens and whenever `deps` change; `reload` loads it
 * again. A cancelled proof is a failure with no error.
 */
export function useLoad<T>(call: () => Promise<Result<T>>, deps: readonly unknown[]) {
  const { guard } = useConsole();
  const [loaded, setLoaded] = useState<Loaded<T>>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    void guard(call).then((r) => {
      if (!live) return;
      if (r?.success) setLoaded({ state: 'ready', data: r.data });
      else setLoaded({ state: 'failed', error: r ? r.error : null });
    });
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `call` is rebuilt each render; deps say when it changes
  }, [guard, attempt, ...deps]);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { loaded, reload, setLoaded };
}

/** A load in progress, or one that failed (with its reason and a retry). */
export function LoadStatus<T>({ loaded, onRetry }: { loaded: Loaded<T>; onRetry: () => void }) {
  if (loaded.state === 'loading')
    return (
      <p className="loading" aria-live="polite">
        <FormattedMessage {...m.loading} />
      </p>
    );
  if (loaded.state === 'ready') return null;
  return (
    <div className="card" role="alert">
      <p>{loaded.error ? <ErrorMessage error={loaded.error} /> : <FormattedMessage {...(loaded.error === null ? m.cancelled : m.failed)} />}</p>
      <button type="button" onClick={onRetry}>
        <FormattedMessage {...m.retry} />
      </button>
    </div>
  );
}

export function ErrorMessage({ error }: { error: ApiError }) {
  return <>{errorText(error)}</>;
}

/** A section of a screen: a card with its heading. */
export function Section({ title, children, id, className }: { title: ReactNode; children: ReactNode; id?: string; className?: string }) {
  const auto = useId();
  const hid = `${id ?? auto}-h`;
  return (
    <section className={`card ${className ?? ''}`.trim()} id={id} aria-labelledby={hid}>
      <h2 id={hid}>{title}</h2>
      {children}
    </section>
  );
}
