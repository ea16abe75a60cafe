// Form state for the auth screens and the personal forms: values, per-field errors, the checks
// run on submit, and the server's refusals shown where the eye is: at the field they concern, or
// as an alert atop the form (FormAlert) that stays until the user edits or submits again. The
// account lock counts down there and keeps the form from being sent until it ends.
import { useEffect, useRef, useState } from 'react';
import type { FormAlertState, Msg } from './field';
import { type ApiError, errorText, handleError, lockMinutes } from '../lib/api';
import { useCountdown } from '../lib/countdown';
import { byReason, hasReason, type ReasonMap } from '../lib/reasons';
import { slot } from '../lib/toast';

type Values = Record<string, string | boolean>;

/** Where a refusal is shown: the field it names (atop the form when the form has none), or the form. */
export const INLINE: ReasonMap<string> = {
  PASSWORD_ERROR: 'form',
  VERIFICATION_ATTEMPT_CODE_LIMIT: 'form',
  EIAM_DEACTIVATE_ERROR: 'form',
  PASSWORD_EXPIRED: 'form',
  ACCOUNT_SUSPENDED: 'form',
  CONTENT_MISSING: 'form',
  INVALID_PARAMETER: 'form',
  PASSWORD_COMPLEXITY_ERROR: 'password',
  PASSWORD_SAME_ERROR: 'password',
  CODE_ERROR: 'code',
  CODE_KIND_ERROR: 'code',
  VERIFYCODE_NOT_FOUND: 'code',
  VERIFICATION_CODE_LIMIT: 'code',
  INVALID_PHONE: 'account',
  INVALID_MAIL: 'account',
  EIAM_INVALID_MAIL: 'account',
  PHONE_NOT_FOUND: 'account',
  MAIL_NOT_FOUND: 'account',
  PHONE_EXIST: 'account',
  MAIL_EXIST: 'account',
  USERNAME_EXIST: 'userName',
  VERIFYCODE_SENDING_TOO_QUICKLY: 'code',
  VERIFYCODE_SENDING_LIMIT: 'code',
};

export function useForm<T extends Values>(init: T | (() => T)) {
  const ref = useRef<HTMLFormElement>(null);
  const alertRef = useRef<HTMLDivElement>(null);
  const [values, setValues] = useState(init);
  const [errors, setErrors] = useState<Partial<Record<string, Msg>>>({});
  const [alert, setAlert] = useState<FormAlertState | null>(null);
  // The reason of the last refusal, until the next edit (CellHint reads it).
  const [refusal, setRefusal] = useState<string | null>(null);
  const lock = useCountdown();
  const locked = alert?.lockedUntil != null && lock.left > 0;
  // The lock's alert goes when the lock ends.
  useEffect(() => {
    if (alert?.lockedUntil != null && lock.left === 0 && Date.now() >= alert.lockedUntil) setAlert(null);
  }, [alert, lock.left]);
  // The default handler's errors while this form is in use are said atop it, focused (lib/toast.ts).
  useEffect(
    () =>
      ref.current
        ? slot(ref.current, (text) => {
            setAlert({ text, lockedUntil: null });
            alertRef.current?.focus();
          })
        : undefined,
    [],
  );
  const keepLock = (a: FormAlertState | null) => (a?.lockedUntil != null && Date.now() < a.lockedUntil ? a : null);
  const set = <K extends keyof T & string>(k: K, v: T[K]) => {
    setValues((s) => ({ ...s, [k]: v }));
    setErrors((e) => ({ ...e, [k]: null }));
    setAlert(keepLock);
    setRefusal(null);
  };
  const focus = (name: string) => (ref.current?.elements.namedItem(name) as HTMLElement | null)?.focus();
  /** Shows the problems found (each field's first); focuses the first; true when there are none. */
  const check = (problems: Partial<Record<keyof T & string, Msg>>) => {
    const bad = Object.entries(problems).filter(([, p]) => p);
    setErrors(Object.fromEntries(bad));
    setAlert(keepLock);
    if (bad[0]) focus(bad[0][0]);
    return bad.length === 0;
  };
  /** Shows one problem at its field, keeping the others. */
  const flag = (name: keyof T & string, p: Msg) => {
    setErrors((e) => ({ ...e, [name]: p }));
    if (p) focus(name);
    return !p;
  };
  /** A server error at the field it names when the form has it, else the default handling. */
  const fail = (e: ApiError) => {
    if (e.field && e.field in values) flag(e.field, e.message || errorText(e));
    else handleError(e);
  };
  /**
   * A refusal of the server (a call made with SKIP): at its field or atop the form when it is
   * about this form (INLINE), else the default handling of spec §8 (toasts, the second step,
   * redirects). Embedded (no toasts there): the default handling still runs (it tells the host
   * page) and every refusal is shown atop the form.
   */
  const refuse = (e: ApiError, embedded = false) => {
    setRefusal(e.reason);
    const where = e.field && e.field in values ? e.field : byReason(INLINE, e.reason);
    if (embedded || !where) handleError(e);
    if (!where && !embedded) return;
    if (where && where !== 'form' && where in values) {
      flag(where as keyof T & string, e.field ? e.message || errorText(e) : errorText(e));
      return;
    }
    const minutes = lockMinutes(e.message);
    const lockedUntil = hasReason(e, 'VERIFICATION_ATTEMPT_CODE_LIMIT') && minutes !== null ? Number(e.message) * 1000 : null;
    setAlert({ text: errorText(e), lockedUntil });
    if (lockedUntil !== null) lock.start(Math.ceil((lockedUntil - Date.now()) / 1000));
    alertRef.current?.focus();
  };
  const bind = (k: keyof T & string) => ({
    name: k,
    value: values[k] as string,
    error: errors[k],
    onChange: (v: string) => set(k, v as T[typeof k]),
  });
  /** The props of the form's FormAlert. */
  const alertProps = { alertRef, alert, left: locked ? lock.left : 0 };
  return { ref, values, errors, set, check, flag, fail, refuse, bind, alert: alertProps, locked, refusal };
}
