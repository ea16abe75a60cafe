// A labelled input with its error line: the error is referenced by aria-describedby, flagged
// with aria-invalid and announced; `.field-error` reserves its line so nothing moves.
import { type InputHTMLAttributes, type ReactNode, useId } from 'react';
import { FormattedMessage, type MessageDescriptor } from 'react-intl';

/** A message to show: a catalogue entry, a text from the server, or nothing. */
export type Msg = MessageDescriptor | string | null | undefined;

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

export function Field({ label, error, hint, after, onChange, ...input }: FieldProps) {
  const id = useId();
  const el = (
    <input id={id} {...input} onChange={(e) => onChange(e.target.value)} aria-invalid={!!error} aria-describedby={hint ? `${id}h ${id}e` : `${id}e`} />
  );
  return (
    <>
      <label htmlFor={id}>
        <FormattedMessage {...label} />
      </label>
      {after ? (
        <div className="row">
          {el}
          {after}
        </div>
      ) : (
        el
      )}
      {hint && (
        <p id={`${id}h`} className="hint muted">
          <FormattedMessage {...hint} />
        </p>
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
