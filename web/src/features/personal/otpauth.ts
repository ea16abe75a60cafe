// The parts of an otpauth:// enrolment URI (Key-Uri-Format) that the security centre shows: the
// Base32 secret for typing by hand, grouped by 4 so that it can be read aloud and checked.

const BASE32 = /^[A-Z2-7]+$/;

/** The Base32 secret of an `otpauth://totp/...` URI (upper case, no padding), or null. */
export function secretOf(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'otpauth:') return null;
  const secret = (u.searchParams.get('secret') ?? '').replace(/[\s=]/g, '').toUpperCase();
  return BASE32.test(secret) ? secret : null;
}

/** `JBSWY3DPEHPK3PXP` -> `JBSW Y3DP EHPK 3PXP`. */
export function groupKey(secret: string, size = 4): string {
  return secret.match(new RegExp(`.{1,${size}}`, 'g'))?.join(' ') ?? '';
}
