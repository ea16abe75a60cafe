// Form state for the auth screens and the personal forms: values, per-field errors, and the
// checks run on submit.
import { useRef, useState } from 'react';
import type { Msg } from './field';
import { type ApiError, errorText, handleError } from '../lib/api';

type Values = Record<string, string | boolean>;

export function useForm<T extends Values>(init: T | (() => T)) {
  const ref = useRef<HTMLFormElement>(null);
  const [values, setValues] = useState(init);
  const [errors, setErrors] = useState<Partial<Record<string, Msg>>>({});
  const set = <K extends keyof T & string>(k: K, v: T[K]) => {
    setValues((s) => ({ ...s, [k]: v }));
    setErrors((e) => ({ ...e, [k]: null }));
  };
  const focus = (name: string) => (ref.current?.elements.namedItem(name) as HTMLElement | null)?.focus();
  /** Shows the problems found (each field's first); focuses the first; true when there are none. */
  const check = (problems: Partial<Record<keyof T & string, Msg>>) => {
    const bad = Object.entries(problems).filter(([, p]) => p);
    setErrors(Object.fromEntries(bad));
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
  const bind = (k: keyof T & string) => ({
    name: k,
    value: values[k] as string,
    error: errors[k],
    onChange: (v: string) => set(k, v as T[typeof k]),
  });
  return { ref, values, errors, set, check, flag, fail, bind };
}
