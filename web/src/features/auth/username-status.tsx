// Whether the username being typed at sign-up is free (GET /auth/username), said under the field
// as it is typed, before any code is sent: "available", or "taken" with a free suggestion the
// person can take with one press. Asked half a second after typing stops, only for a name the
// local rules accept, and only the latest answer counts (docs/web-experience.md "Sign-up"). A
// name of two characters or more that the rules refuse ("Zhang  Wei", "ann@home") is refused at
// the same pause, by the field itself (its error line), before anything is submitted.
import { useEffect, useState } from 'react';
import { defineMessages, FormattedMessage } from 'react-intl';
import { call, SKIP } from '../../lib/api';
import type { Problem } from '../../lib/validate';
import * as v from '../../lib/validate-text';
import { WithMessages } from '../../components/with-messages';
import { loadSignup } from './signup-messages';

const m = defineMessages({
  checking: { id: 'register.username.checking', defaultMessage: 'Checking the username…' },
  free: { id: 'register.username.free', defaultMessage: '{name} is available.' },
  taken: { id: 'register.username.taken', defaultMessage: '{name} is taken.' },
  suggest: { id: 'register.username.suggest', defaultMessage: 'Use {name}' },
});

/** How long typing must pause before the name is checked. */
export const PAUSE_MS = 500;

type Said =
  | { name: string; state: 'checking' }
  | { name: string; state: 'free' }
  | { name: string; state: 'taken'; suggestion: string | null }
  | { name: string; state: 'refused'; problem: Problem };

/** The state of `value`'s check: what to say, and whether the name is known taken. */
export function useUsernameCheck(value: string): Said | null {
  const name = value.trim();
  const problem = name ? v.username(name) : null;
  const checkable = !!name && !problem;
  // Too short is not said while typing (every name starts with one character).
  const refusable = !!problem && [...name].length > 1;
  const [said, setSaid] = useState<Said | null>(null);
  useEffect(() => {
    if (refusable) {
      const t = setTimeout(() => setSaid({ name, state: 'refused', problem: v.username(name) }), PAUSE_MS);
      return () => clearTimeout(t);
    }
    if (!checkable) return setSaid(null);
    let live = true;
    setSaid({ name, state: 'checking' });
    const t = setTimeout(() => {
      void call('GET /auth/username', { query: { userName: name } }, SKIP).then((r) => {
        if (!live) return;
        // A refusal or an outage says nothing here: the sign-up's own answer still counts.
        if (!r.success) return setSaid(null);
        setSaid(r.data.available ? { name, state: 'free' } : { name, state: 'taken', suggestion: r.data.suggestion ?? null });
      });
    }, PAUSE_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [name, checkable, refusable]);
  return said && said.name === name ? said : null;
}

/**
 * What the check says, announced politely; a taken name offers its suggestion. Its words (the
 * `signup` bundle) load with the first answer, so opening the sign-up loads nothing more.
 */
export function UsernameStatus({ said, onUse }: { said: Said | null; onUse: (name: string) => void }) {
  return (
    <div className="username-status" role="status" aria-live="polite" data-testid="username-status">
      {said && said.state !== 'refused' && (
        <WithMessages bundle="signup" load={loadSignup}>
          <Words said={said} onUse={onUse} />
        </WithMessages>
      )}
    </div>
  );
}

function Words({ said, onUse }: { said: Exclude<Said, { state: 'refused' }>; onUse: (name: string) => void }) {
  return (
    <>
      {said.state === 'checking' && (
        <p className="muted">
          <FormattedMessage {...m.checking} />
        </p>
      )}
      {said.state === 'free' && (
        <p>
          <FormattedMessage {...m.free} values={{ name: said.name }} />
        </p>
      )}
      {said.state === 'taken' && (
        <p className="taken">
          <FormattedMessage {...m.taken} values={{ name: said.name }} />{' '}
          {said.suggestion && (
            <button type="button" className="link" data-testid="use-suggestion" onClick={() => onUse(said.suggestion!)}>
              <FormattedMessage {...m.suggest} values={{ name: said.suggestion }} />
            </button>
          )}
        </p>
      )}
    </>
  );
}
