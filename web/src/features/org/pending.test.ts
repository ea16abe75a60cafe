import { afterEach, describe, expect, it } from 'vitest';
import { forget, keep, pending, tokenOf } from './pending';

const TOKEN = 'Zk3q9_x-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';

afterEach(() => sessionStorage.clear());

describe('the invitation token', () => {
  it('is read from the link only when it looks like a token', () => {
    expect(tokenOf(`?token=${TOKEN}`)).toBe(TOKEN);
    expect(tokenOf(`?lang=en&token=${TOKEN}`)).toBe(TOKEN);
    expect(tokenOf('?token=')).toBeNull();
    expect(tokenOf('?token=<script>')).toBeNull();
    expect(tokenOf('')).toBeNull();
  });

  it('is kept in this tab (sessionStorage, not localStorage) until forgotten', () => {
    keep(TOKEN);
    expect(pending()).toBe(TOKEN);
    expect(Object.values(localStorage)).not.toContain(TOKEN);
    forget();
    expect(pending()).toBeNull();
  });
});
