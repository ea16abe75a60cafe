// Small pieces the console's screens share: a message or the server's word, the dialog
// that asks for a reason before a change, and a secret shown once.
import { type FormEvent, type ReactNode, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { Dialog } from '../../components/dialog';
import { ErrorText, type Msg } from '../../components/field';
import { errorText, type Result } from '../../lib/api';
import { isCountry, regionName } from '../../lib/countries';

const m = defineMessages({
  reason: { id: 'admin.reason.label', defaultMessage: 'Reason (recorded in the audit log)' },
  reasonHint: { id: 'admin.reason.hint', defaultMessage: 'For example the support ticket and what the customer asked for.' },
  reasonRequired: { id: 'admin.reason.required', defaultMessage: 'Give a reason' },
  cancel: { id: 'admin.cancel', defaultMessage: 'Cancel' },
  copy: { id: 'admin.secret.copy', defaultMessage: 'Copy' },
  copied: { id: 'admin.secret.copied', defaultMessage: 'Copied' },
  once: {
    id: 'admin.secret.once',
    defaultMessage: 'This is the only time the secret is shown: copy it now and hand it to the partner safely. You will not see it again.',
  },
  secretLabel: { id: 'admin.secret.label', defaultMessage: 'App secret' },
  dismiss: { id: 'admin.secret.dismiss', defaultMessage: 'I have copied it' },
});

/**
 * A table's frame: it scrolls sideways on a narrow screen, so it is a named region the keyboard
 * can reach (and scroll with the arrow keys).
 */
export function TableFrame({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div className={`table-wrap ${className ?? ''}`.trim()} tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

/** A message, or a word as the server said it. */
/** A country as people name it in the page's language ("China", "中国"), never its code; an unknown code as it is. */
export function Place({ code }: { code: string }) {
  const { locale } = useIntl();
  return <>{isCountry(code) ? regionName(code, locale) : code}</>;
}

/** Punctuation written by the code, in the page's language: full-width in Chinese (docs/glossary.md). */
export function usePunct() {
  const zh = useIntl().locale === 'zh-CN';
  return { comma: zh ? '，' : ', ', list: zh ? '、' : ', ', paren: (s: string) => (zh ? `（${s}）` : ` (${s})`) };
}

export function T({ msg }: { msg: MessageDescriptor | string }) {
  return typeof msg === 'string' ? <>{msg}</> : <FormattedMessage {...msg} />;
}

interface ReasonDialogProps {
  title: ReactNode;
  /** What the change does. */
  description: ReactNode;
  confirm: MessageDescriptor;
  danger?: boolean;
  /** More fields above the reason (e.g. when the old secret ends). */
  children?: ReactNode;
  testId?: string;
  /**
   * Sends the change; null when the fresh proof was cancelled. An error is shown in the dialog:
   * the answer's, or a refusal already said in the screen's own words (a string).
   */
  run: (reason: string) => Promise<Result<unknown> | string | null>;
  onDone: (ok: boolean) => void;
}

/** Asks for the reason every console change records, then sends it; errors stay in the dialog. */
export function ReasonDialog({ title, description, confirm, danger, children, testId, run, onDone }: ReasonDialogProps) {
  const id = useId();
  const intl = useIntl();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<Msg>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!reason.trim()) {
      setError(m.reasonRequired);
      field.current?.focus();
      return;
    }
    setBusy(true);
    setFailed(null);
    const r = await run(reason.trim());
    setBusy(false);
    if (r === null) return;
    if (typeof r === 'string') return setFailed(r);
    if (r.success) return onDone(true);
    if (r.error.field === 'reason') {
      setError(errorText(r.error));
      field.current?.focus();
    } else setFailed(errorText(r.error));
  };
  return (
    <Dialog testId={testId ?? 'reason-dialog'} title={title} description={description} onCancel={() => onDone(false)}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        {children}
        <label htmlFor={`${id}r`}>
          <FormattedMessage {...m.reason} />
        </label>
        <textarea
          ref={field}
          id={`${id}r`}
          name="reason"
          data-autofocus={children ? undefined : true}
          rows={3}
          maxLength={500}
          required
          value={reason}
          aria-invalid={!!error}
          aria-describedby={`${id}h ${id}e`}
          onChange={(e) => {
            setReason(e.target.value);
            setError(null);
          }}
        />
        <p id={`${id}h`} className="hint muted">
          <FormattedMessage {...m.reasonHint} />
        </p>
        <ErrorText id={`${id}e`} error={error} />
        <p className="field-error" role="alert" data-testid="reason-dialog-error">
          {failed}
        </p>
        <div className="actions">
          <button type="button" onClick={() => onDone(false)}>
            {intl.formatMessage(m.cancel)}
          </button>
          <button type="submit" className={danger ? 'primary danger' : 'primary'} disabled={busy} data-testid="reason-confirm">
            <FormattedMessage {...confirm} />
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/**
 * A new secret, shown once with a copy button: an app's (the default label and test ids) or
 * another's (`label`, `testId`, and `children` for what else to say about it).
 */
export function SecretOnce({
  secret,
  onDismiss,
  label,
  testId = 'secret-once',
  inputTestId = 'app-secret',
  children,
}: {
  secret: string;
  onDismiss: () => void;
  /** The secret's label (default: the app secret's). */
  label?: ReactNode;
  testId?: string;
  inputTestId?: string;
  children?: ReactNode;
}) {
  const id = useId();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      // No clipboard (an insecure context, a refusal): the value is selectable.
      setCopied(false);
    }
  };
  return (
    <div className="secret-once notice" role="status" data-testid={testId}>
      <p id={`${id}o`}>
        <strong>
          <FormattedMessage {...m.once} />
        </strong>
      </p>
      <label htmlFor={`${id}s`}>
        {label ?? <FormattedMessage {...m.secretLabel} />}
      </label>
      <div className="row">
        <input id={`${id}s`} readOnly value={secret} className="key" data-testid={inputTestId} aria-describedby={`${id}o`} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          <FormattedMessage {...(copied ? m.copied : m.copy)} />
        </button>
      </div>
      {children}
      <div className="actions">
        <button type="button" onClick={onDismiss}>
          <FormattedMessage {...m.dismiss} />
        </button>
      </div>
    </div>
  );
}
