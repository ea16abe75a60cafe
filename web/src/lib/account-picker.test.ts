// What "choose an account" shows and forgets: masked accounts, names learnt from the centre,
// and the sign-in refusals that mean the account is gone.
import { afterEach, describe, expect, it } from 'vitest';
import * as accounts from './accounts';
import { dropIfGone, forgetAccount, isGone, learnName, maskAccount, nameOf, sameMasked } from './account-picker';

afterEach(() => localStorage.clear());

describe('account picker', () => {
  it('masks mail addresses and phone numbers, not user names', () => {
    expect(maskAccount('ann.lee@example.com')).toBe('an***@example.com');
    expect(maskAccount('a@example.com')).toBe('a***@example.com');
    expect(maskAccount('13812345678')).toBe('138****5678');
    expect(maskAccount('+86 138 1234 5678')).toBe('+86138****5678');
    expect(maskAccount('annlee')).toBe('annlee');
  });

  it('matches an account with the masked form the server shows', () => {
    expect(sameMasked('Ann@example.com', 'an***@example.com')).toBe(true);
    expect(sameMasked('bob@example.com', 'an***@example.com')).toBe(false);
    expect(sameMasked('13812345678', '138****5678')).toBe(true);
    expect(sameMasked('13812345678', null)).toBe(false);
  });

  it('learns the name of a remembered account from the centre, and forgets it with the account', () => {
    accounts.remember('ann@example.com', 1);
    accounts.remember('13812345678', 2);
    learnName({ userName: 'annlee', displayName: 'Ann Lee', mail: 'an***@example.com', phone: null });
    learnName({ userName: 'bob', displayName: null, mail: null, phone: '138****5678' });
    learnName({ userName: 'nobody', displayName: 'No One', mail: 'zz***@example.com', phone: null });
    expect(nameOf('ANN@example.com')).toBe('Ann Lee');
    expect(nameOf('13812345678')).toBe('bob');
    forgetAccount('ann@example.com');
    expect(nameOf('ann@example.com')).toBeNull();
    expect(accounts.list().map((r) => r.account)).toEqual(['13812345678']);
  });

  it('drops a remembered account only when the server says it is gone', () => {
    accounts.remember('gone@example.com', 1);
    expect(isGone({ reason: 'PASSWORD_ERROR' })).toBe(false);
    expect(dropIfGone('gone@example.com', { reason: 'PASSWORD_ERROR' })).toBe(false);
    expect(dropIfGone('gone@example.com', { reason: 'CODE_ERROR' })).toBe(false);
    expect(accounts.list()).toHaveLength(1);
    expect(dropIfGone('other@example.com', { reason: 'MAIL_NOT_FOUND' })).toBe(false);
    expect(dropIfGone('GONE@example.com', { reason: 'MAIL_NOT_FOUND' })).toBe(true);
    expect(accounts.list()).toEqual([]);
    accounts.remember('13812345678', 1);
    expect(dropIfGone('13812345678', { reason: 'PHONE_NOT_FOUND' })).toBe(true);
  });
});
