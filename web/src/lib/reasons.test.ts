import { describe, expect, it } from 'vitest';
import { byReason, hasReason, type ReasonMap } from './reasons';

describe('typed reason maps', () => {
  const map: ReasonMap<string> = { PASSWORD_ERROR: 'password', NETWORK_ERROR: 'network' };

  it('finds the entry of a reason, and none for one the map leaves out', () => {
    expect(byReason(map, 'PASSWORD_ERROR')).toBe('password');
    expect(byReason(map, 'NETWORK_ERROR')).toBe('network');
    expect(byReason(map, 'CODE_ERROR')).toBeUndefined();
  });

  it('an unknown or inherited name is no entry', () => {
    expect(byReason(map, 'SOMETHING_NEW')).toBeUndefined();
    expect(byReason(map, 'toString')).toBeUndefined();
    expect(byReason(map, '__proto__')).toBeUndefined();
  });

  it('hasReason is true only for the reasons given', () => {
    expect(hasReason({ reason: 'NOT_FOUND' }, 'NOT_FOUND', 'METHOD_NOT_ALLOWED')).toBe(true);
    expect(hasReason({ reason: 'CODE_ERROR' }, 'NOT_FOUND', 'METHOD_NOT_ALLOWED')).toBe(false);
    expect(hasReason({ reason: 'NOT_FOUND' })).toBe(false);
  });
});
