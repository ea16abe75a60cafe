// A labelled input with its error line: the error is referenced by aria-describedby, flagged
// with aria-invalid and announced; `.field-error` reserves its line so nothing moves. A password
// input has a show-password toggle; a new password (name "password", autocomplete
// "new-password": sign-up, recovery, the personal centre's change) has the live rule checklist.
import { type InputHTMLAttributes, lazy, type ReactNode, type RefObject, Suspense, useId, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { withTimeout } from './lazy-screen';

/** A message to show: a catalogue entry, a text from the server, or nothing. */
export type Msg = MessageDescriptor | string | null | undefined;

const m = defineMessages({
  show: { id: 'field.show', defaultMessage: 'Show' },
  showPassword: { id: 'field.showPassword', defaultMessage: 'Show password' },
  // The lock said once (issue 34 item 7): while the clock runs, the alert says that the account is
  // locked and the clock says the wait; the spec's "try it in N minutes" is what is said where
  // no clock runs (a toast, an old server's answer).
  locked: { id: 'form.locked', defaultMessage: 'Your account has been locked.' },
  unlockIn: { id: 'form.unlockIn', defaultMessage: 'Please try it in {time}.' },
});


/** The alert atop a form: the text, and the lock's end (ms) when it is the account lock. */
export interface FormAlertState {
  text: string;
  lockedUntil: number | null;
}

const clock = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

/** The lock's live clock ("Please try it in 14:59."): a timer, not re-announced each second. */
export function UnlockIn({ left, testId = 'unlock-in' }: { left: number; testId?: string }) {
  return (
    <span role="timer" data-testid={testId}>
      <FormattedMessage {...m.unlockIn} values={{ time: clock(left) }} />
    </span>
  );
}

/**
 * The form's refusal (use-form.ts `alert`), announced once; the lock is said once ("Your account
 * has been locked.") and its wait once, by the live clock beside it, a timer (not re-announced
 * each second), with `lockAction` (the way to unlock now) under it. Focused when it appears
 * (tabIndex -1), so the whole sentence, clock included, is read then.
 */
export function FormAlert({ alertRef, alert, left, lockAction }: {
  alertRef: RefObject<HTMLDivElement | null>;
  alert: FormAlertState | null;
  left: number;
  lockAction?: ReactNode;
}) {
  return (
    <div ref={alertRef} tabIndex={-1} className={alert ? 'form-alert on' : 'form-alert'} data-testid="form-alert">
      <p>
        <span role="alert">{left > 0 ? <FormattedMessage {...m.locked} /> : alert?.text}</span>
        {left > 0 && (
          <>
            {' '}
            <UnlockIn left={left} />
          </>
        )}
      </p>
      {left > 0 && lockAction && <p>{lockAction}</p>}
    </div>
  );
}

// Only new-password fields show it: it loads with the first one (not with sign-in).
const PasswordChecklist = lazy(() => withTimeout(import('./password-checklist'), 'password-checklist'));

export function ErrorText({ id, error }: { id: string; error: Msg }) {
  return (
    <p id={id} className="field-error" role="alert">
      {!error ? null : typeof error === 'string' ? error : <FormattedMessage {...error} />}
    </p>
  );
}

type FieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'onChange' | 'value'> & {
  name: string;
  label: MessageDescriptor;
  value: string;
  onChange: (value: string) => void;
  error?: Msg;
  /** The rule, shown under the input all the time (so an error needs one line only). */
  hint?: MessageDescriptor;
  /** Shown beside the input (the send-code button). */
  after?: ReactNode;
};

export function Field({ label, error, hint, after, onChange, type, ...input }: FieldProps) {
  const id = useId();
  const intl = useIntl();
  const [shown, setShown] = useState(false);
  const secret = type === 'password';
  const checklist = secret && input.name === 'password' && input.autoComplete === 'new-password';
  const described = [hint && `${id}h`, checklist && `${id}c`, `${id}e`].filter(Boolean).join(' ');
  const el = (
    <input id={id} {...input} type={secret && shown ? 'text' : type} onChange={(e) => onChange(e.target.value)}
      aria-invalid={!!error} aria-describedby={described} />
  );
  const side = secret ? (
    <>
      {after}
      <button type="button" className="reveal" aria-pressed={shown} aria-controls={id} data-testid={`show-${input.name}`}
        aria-label={intl.formatMessage(m.showPassword)} onClick={() => setShown((s) => !s)}>
        <FormattedMessage {...m.show} />
      </button>
    </>
  ) : (
    after
  );
  return (
    <>
      <label htmlFor={id}>
        <FormattedMessage {...label} />
      </label>
      {side ? (
        <div className="row">
          {el}
          {side}
        </div>
      ) : (
        el
      )}
      {hint && (
        <p id={`${id}h`} className="hint muted">
          <FormattedMessage {...hint} />
        </p>
      )}
      {checklist && (
        <Suspense fallback={null}>
          <PasswordChecklist id={`${id}c`} value={input.value} />
        </Suspense>
      )}
      <ErrorText id={`${id}e`} error={error} />
    </>
  );
}

type OtpFieldProps = Omit<FieldProps, 'name' | 'inputMode' | 'autoComplete' | 'maxLength' | 'after' | 'hint'> & { name?: string };

/** The 6-digit code from an authenticator app: digits only (anything else typed is dropped), at most 6. */
export function OtpField({ name = 'code', onChange, ...props }: OtpFieldProps) {
  return (
    <Field
      name={name}
      {...props}
      onChange={(x) => onChange(x.replace(/\D/g, '').slice(0, 6))}
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={6}
      required
    />
  );
}
