// Bind or replace the mail address or the mobile number, like sign-up: the new value, then one
// press of "Send code" (the captcha solves itself in the background, the code goes to the new
// value with purpose "bind", "code sent" is said by the code field and focus moves to it), then
// PATCH /auth/mail or /auth/phone. The form is closed behind its row (the kind and the current
// value, fold.tsx); once bound it closes and the row says so, not a toast. Staff accounts keep
// their company mail (spec §6): that form is replaced by a note.
import { type FormEvent, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { CodeField } from '../../components/code-field';
import { Field, type Msg } from '../../components/field';
import { Fold } from './fold';
import { type ApiError, errorText, handleError, type Result } from '../../lib/api';
import { bindAddress } from './api';
import * as v from '../../lib/validate';
import { type IdentityKind, lastSignIn, normalizeIdentity, sameAsCurrent } from './identity';
import type { UserInfo } from '../../lib/api-types.gen';
import { byReason, type ReasonMap } from '../../lib/reasons';
import { FormError } from '../../components/form-error';

const m = defineMessages({
  mailHeading: { id: 'info.bind.mailHeading', defaultMessage: 'E-mail address' },
  phoneHeading: { id: 'info.bind.phoneHeading', defaultMessage: 'Mobile number' },
  notBound: { id: 'info.bind.notBound', defaultMessage: 'Not bound yet' },
  newMail: { id: 'info.bind.newMail', defaultMessage: 'New e-mail address' },
  newPhone: { id: 'info.bind.newPhone', defaultMessage: 'New mobile number (mainland China)' },
  same: { id: 'info.bind.same', defaultMessage: 'The new value must differ from the current one' },
  bindShort: { id: 'info.bind.bind', defaultMessage: 'Bind' },
  changeShort: { id: 'info.bind.change', defaultMessage: 'Change' },
  bindMail: { id: 'info.bind.bindMail', defaultMessage: 'Bind e-mail address' },
  changeMail: { id: 'info.bind.changeMail', defaultMessage: 'Change e-mail address' },
  bindPhone: { id: 'info.bind.bindPhone', defaultMessage: 'Bind mobile number' },
  changePhone: { id: 'info.bind.changePhone', defaultMessage: 'Change mobile number' },
  mailDone: { id: 'info.bind.mailDone', defaultMessage: 'Your e-mail address has been updated' },
  phoneDone: { id: 'info.bind.phoneDone', defaultMessage: 'Your mobile number has been updated' },
  intro: {
    id: 'info.contactIntro',
    defaultMessage: 'Both can be used to sign in and to receive verification codes. A code sent to the new address confirms it is yours.',
  },
  staff: {
    id: 'info.bind.staff',
    defaultMessage: 'Internal staff accounts use their company e-mail address, which cannot be changed here.',
  },
});

type Guard = <T>(action: () => Promise<Result<T>>) => Promise<Result<T> | null>;
type FieldName = 'address' | 'code';

const TEXT: Record<IdentityKind, { heading: MessageDescriptor; label: MessageDescriptor; bind: MessageDescriptor; change: MessageDescriptor; done: MessageDescriptor }> = {
  mail: { heading: m.mailHeading, label: m.newMail, bind: m.bindMail, change: m.changeMail, done: m.mailDone },
  phone: { heading: m.phoneHeading, label: m.newPhone, bind: m.bindPhone, change: m.changePhone, done: m.phoneDone },
};

/** Server errors that belong to the address or the code field. */
const FIELD_OF: ReasonMap<FieldName> = {
  MAIL_EXIST: 'address',
  PHONE_EXIST: 'address',
  INVALID_MAIL: 'address',
  INVALID_PHONE: 'address',
  EIAM_MAIL_PERMISSION_DENIED: 'address',
  VERIFYCODE_NOT_FOUND: 'code',
  CODE_ERROR: 'code',
  CODE_KIND_ERROR: 'code',
  VERIFICATION_CODE_LIMIT: 'code',
};

function fieldOf(kind: IdentityKind, e: ApiError): FieldName | null {
  const implied = byReason(FIELD_OF, e.reason);
  if (e.field === kind || e.field === 'account' || implied === 'address') return 'address';
  if (e.field === 'code' || implied === 'code') return 'code';
  return null;
}

export function BindIdentity({ kind, info, onInfo, guard }: { kind: IdentityKind; info: UserInfo; onInfo: (u: UserInfo) => void; guard: Guard }) {
  const intl = useIntl();
  const text = TEXT[kind];
  // Shown whole to the owner (fullMail/fullPhone); masked only from a server that lacks them.
  const masked = (kind === 'mail' ? info.mail : info.phone) ?? null;
  const whole = (kind === 'mail' ? info.fullMail : info.fullPhone) ?? null;
  const current = whole ?? masked;
  const staff = kind === 'mail' && info.isEiamUser;
  const summary = (
    <>
      <h3>
        <FormattedMessage {...text.heading} />
      </h3>
      <p>{current ? <span className="value">{current}</span> : <FormattedMessage {...m.notBound} />}</p>
    </>
  );
  if (staff)
    return (
      <div className="bind">
        {summary}
        <p className="notice" data-testid="bind-mail-staff">
          <FormattedMessage {...m.staff} />
        </p>
      </div>
    );
  return (
    <div className="bind">
      <Fold
        name={`bind-${kind}`}
        saidTestId={`bind-${kind}-done`}
        action={current ? m.changeShort : m.bindShort}
        hint={intl.formatMessage(text.heading)}
        summary={summary}
      >
        {({ close }) => <BindForm kind={kind} masked={masked} whole={whole} onInfo={onInfo} guard={guard} onDone={close} />}
      </Fold>
    </div>
  );
}

interface FormProps {
  kind: IdentityKind;
  masked: string | null;
  whole: string | null;
  onInfo: (u: UserInfo) => void;
  guard: Guard;
  onDone: (said: string) => void;
}

function BindForm({ kind, masked, whole, onInfo, guard, onDone }: FormProps) {
  const current = whole ?? masked;
  const intl = useIntl();
  const form = useRef<HTMLFormElement>(null);
  const text = TEXT[kind];
  const [address, setAddress] = useState('');
  const [code, setCode] = useState('');
  const [errors, setErrors] = useState<Partial<Record<FieldName, Msg>>>({});
  const [busy, setBusy] = useState(false);
  const focus = (f: FieldName) => (form.current?.elements.namedItem(f === 'address' ? kind : 'code') as HTMLElement | null)?.focus();
  const flag = (f: FieldName, msg: Msg) => {
    setErrors((e) => ({ ...e, [f]: msg }));
    focus(f);
  };
  const addressProblem = (): Msg => {
    const p = kind === 'mail' ? v.mail(address) : v.phone(address);
    if (p) return address.trim() ? p : v.rules.empty;
    // The whole value known: exactly; else only when certain (identity.ts).
    const same = whole ? normalizeIdentity(kind, address) === whole : sameAsCurrent(kind, address, masked, lastSignIn());
    return same ? m.same : null;
  };
  /** The value to send the code to, or null after saying at the field why not. */
  const target = (): string | null => {
    const p = addressProblem();
    if (p) {
      flag('address', p);
      return null;
    }
    return normalizeIdentity(kind, address);
  };
  /** A refusal at the field it concerns (a refused send at the code field, as on sign-up). */
  const refused = (e: ApiError) => {
    const f = fieldOf(kind, e) ?? (/^(VERIFYCODE_SENDING|VERIFYCAPTCHA)/.test(e.reason) ? 'code' : null);
    if (f) flag(f, errorText(e));
    else handleError(e);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = { address: addressProblem(), code: v.code(code) };
    setErrors(found);
    if (found.address) return focus('address');
    if (found.code) return focus('code');
    setBusy(true);
    const value = normalizeIdentity(kind, address);
    const res = await guard(() => bindAddress(kind, value, code.trim()));
    setBusy(false);
    if (!res) return;
    if (res.success) {
      onInfo(res.data);
      onDone(intl.formatMessage(text.done));
      return;
    }
    refused(res.error);
  };
  return (
    <form ref={form} data-testid={`bind-${kind}`} onSubmit={(e) => void submit(e)} noValidate>
      <FormError />
      {/* It speaks of addresses: the mail form's (a phone is never called an address). */}
      {kind === 'mail' && (
        <p className="muted">
          <FormattedMessage {...m.intro} />
        </p>
      )}
      <Field
        name={kind}
        type={kind === 'mail' ? 'email' : 'tel'}
        label={text.label}
        value={address}
        onChange={(x) => {
          setAddress(x);
          setErrors((er) => ({ ...er, address: null }));
        }}
        error={errors.address}
        autoComplete={kind === 'mail' ? 'email' : 'tel'}
        maxLength={kind === 'mail' ? 254 : 20}
        required
      />
      <CodeField
        purpose="bind"
        account={target}
        value={code}
        error={errors.code}
        onChange={(x) => {
          setCode(x.replace(/\D/g, '').slice(0, 6));
          setErrors((er) => ({ ...er, code: null }));
        }}
        onRefused={refused}
      />
      <button type="submit" className="primary" disabled={busy}>
        <FormattedMessage {...(current ? text.change : text.bind)} />
      </button>
    </form>
  );
}
