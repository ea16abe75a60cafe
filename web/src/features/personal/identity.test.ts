import { describe, expect, it } from 'vitest';
import { lastSignIn, maskIdentity, normalizeIdentity, sameAsCurrent } from './identity';

describe('masking like the server', () => {
  it('keeps 2 characters of a longer local part, 1 of a short one', () => {
    expect(maskIdentity('mail', 'ann@example.com')).toBe('an***@example.com');
    expect(maskIdentity('mail', 'an@example.com')).toBe('a***@example.com');
    expect(maskIdentity('mail', 'a@example.com')).toBe('a***@example.com');
  });

  it('keeps the first 3 and last 4 digits of a phone number', () => {
    expect(maskIdentity('phone', '13800138000')).toBe('138****8000');
  });

  it('normalises case, spaces, dashes and the +86 prefix first', () => {
    expect(normalizeIdentity('mail', '  Ann@Example.COM ')).toBe('ann@example.com');
    expect(normalizeIdentity('phone', '+86 138-0013-8000')).toBe('13800138000');
    expect(normalizeIdentity('phone', '0086 13800138000')).toBe('13800138000');
  });
});

describe('the new value is the current one', () => {
  it('when it masks the same and is the identifier last signed in with', () => {
    expect(sameAsCurrent('mail', 'ANN@example.com', 'an***@example.com', 'ann@example.com')).toBe(true);
    expect(sameAsCurrent('phone', '138 0013 8000', '138****8000', '+8613800138000')).toBe(true);
  });

  it('not when it masks differently', () => {
    expect(sameAsCurrent('mail', 'bob@example.com', 'an***@example.com', 'ann@example.com')).toBe(false);
  });

  it('not when only the mask agrees (the server decides then)', () => {
    expect(sameAsCurrent('mail', 'anna@example.com', 'an***@example.com', 'ann@example.com')).toBe(false);
    expect(sameAsCurrent('mail', 'ann@example.com', 'an***@example.com', null)).toBe(false);
  });

  it('not when nothing is bound yet', () => {
    expect(sameAsCurrent('phone', '13800138000', null, '13800138000')).toBe(false);
  });
});

describe('the identifier last used to sign in here', () => {
  it('is the most recent entry of the remembered accounts', () => {
    localStorage.setItem('ciam_accounts', JSON.stringify([{ account: 'old@example.com', lastUsed: 1 }, { account: 'new@example.com', lastUsed: 2 }]));
    expect(lastSignIn()).toBe('new@example.com');
    localStorage.clear();
  });

  it('is null when none is remembered or the entry is unreadable', () => {
    expect(lastSignIn()).toBeNull();
    localStorage.setItem('ciam_accounts', '{not json');
    expect(lastSignIn()).toBeNull();
    localStorage.setItem('ciam_accounts', JSON.stringify([{ account: 5 }]));
    expect(lastSignIn()).toBeNull();
    localStorage.clear();
  });
});
