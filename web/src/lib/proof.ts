// Bodies that prove who the person is (spec §7: POST /auth/totp/verify "empty fields removed"):
// `{password}` or `{code}`, never a field holding "". The server tells a missing proof from a
// wrong one, so an empty string must not reach it.
import { hasReason } from './reasons';

/** A copy of `body` without the fields that are undefined, null or blank strings. */
export function withoutEmpty<T extends Record<string, unknown>>(body: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(body) as [keyof T, T[keyof T]][]) {
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) continue;
    out[k] = v;
  }
  return out;
}

/** Errors of a proof shown at its field (password or code); the others get the default handling. */
export function atField(e: { reason: string }): boolean {
  return hasReason(e, 'PASSWORD_ERROR', 'TOTP_VERIFY_FAILED', 'INVALID_PARAMETER', 'VERIFICATION_ATTEMPT_CODE_LIMIT');
}
