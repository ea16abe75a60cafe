// Spec §4/§9: the session is the stored token; 30 minutes without an action ends it. Local storage
// is shared by every tab of the origin, so activity in one tab keeps the others alive.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as session from './session';

const MIN = 60_000;

beforeEach(() => {
  localStorage.clear();
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-03-01T10:00:00Z'));
});
afterEach(() => {
  vi.useRealTimers();
  localStorage.clear();
});

describe('session', () => {
  it('the idle timeout is 30 minutes', () => {
    expect(session.IDLE_MS).toBe(30 * MIN);
  });

  it('start stores the token (when present) and the time; clear removes both', () => {
    session.start('tok-1');
    expect(localStorage.getItem('ciam_token')).toBe('tok-1');
    expect(localStorage.getItem('lastActionTime')).toBe(String(Date.now()));
    expect(session.isLoggedIn()).toBe(true);
    expect(session.token()).toBe('tok-1');
    vi.advanceTimersByTime(1000);
    session.start(undefined);
    expect(localStorage.getItem('ciam_token')).toBe('tok-1');
    expect(localStorage.getItem('lastActionTime')).toBe(String(Date.now()));
    session.clear();
    expect(localStorage.getItem('ciam_token')).toBeNull();
    expect(localStorage.getItem('lastActionTime')).toBeNull();
    expect(session.isLoggedIn()).toBe(false);
  });

  it('checkIdle keeps a session up to 30 minutes and ends it after, once', () => {
    session.start('tok');
    const expired = vi.fn();
    vi.advanceTimersByTime(30 * MIN);
    expect(session.checkIdle(expired)).toBe(false);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(session.checkIdle(expired)).toBe(true);
    expect(expired).toHaveBeenCalledTimes(1);
    expect(session.isLoggedIn()).toBe(false);
    expect(localStorage.getItem('lastActionTime')).toBeNull();
    expect(session.checkIdle(expired)).toBe(false);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('an action (touch) restarts the 30 minutes', () => {
    session.start('tok');
    vi.advanceTimersByTime(29 * MIN);
    session.touch();
    vi.advanceTimersByTime(29 * MIN);
    expect(session.isIdleExpired()).toBe(false);
    vi.advanceTimersByTime(2 * MIN);
    expect(session.isIdleExpired()).toBe(true);
  });

  it('activity in another tab counts: the other tab writes lastActionTime in the shared storage', () => {
    session.start('tok');
    vi.advanceTimersByTime(25 * MIN);
    // Tab B (same origin, same localStorage) records an action.
    localStorage.setItem('lastActionTime', String(Date.now()));
    vi.advanceTimersByTime(25 * MIN);
    const expired = vi.fn();
    expect(session.checkIdle(expired)).toBe(false);
    expect(session.isLoggedIn()).toBe(true);
    vi.advanceTimersByTime(6 * MIN);
    expect(session.checkIdle(expired)).toBe(true);
    expect(expired).toHaveBeenCalledOnce();
  });

  it('a logout in another tab (token removed) is seen here', () => {
    session.start('tok');
    localStorage.removeItem('ciam_token');
    expect(session.isLoggedIn()).toBe(false);
  });

  it('a token with no or a broken time counts as expired; no token is never "expired"', () => {
    localStorage.setItem('ciam_token', 'tok');
    expect(session.isIdleExpired()).toBe(true);
    localStorage.setItem('lastActionTime', 'garbage');
    expect(session.isIdleExpired()).toBe(true);
    localStorage.clear();
    localStorage.setItem('lastActionTime', '1');
    expect(session.isIdleExpired()).toBe(false);
    expect(session.checkIdle(() => {})).toBe(false);
  });

  it('a periodic check with fake timers ends the session at 30 minutes of inactivity', () => {
    session.start('tok');
    const expired = vi.fn();
    const timer = setInterval(() => session.checkIdle(expired), 30_000);
    vi.advanceTimersByTime(30 * MIN);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(30_000);
    expect(expired).toHaveBeenCalledOnce();
    clearInterval(timer);
  });

  it('memory-only mode (the embedded sign-in): the token lives in memory, storage is neither read nor written', () => {
    session.start('stored');
    const last = localStorage.getItem('lastActionTime');
    session.memoryOnly(true);
    try {
      expect(session.token()).toBeNull();
      expect(session.isLoggedIn()).toBe(false);
      session.start('frame');
      session.touch();
      expect(session.token()).toBe('frame');
      vi.advanceTimersByTime(31 * MIN);
      expect(session.isIdleExpired()).toBe(false);
      session.clear();
      expect(session.token()).toBeNull();
      expect(localStorage.getItem('ciam_token')).toBe('stored');
      expect(localStorage.getItem('lastActionTime')).toBe(last);
    } finally {
      session.memoryOnly(false);
    }
    expect(session.token()).toBe('stored');
  });
});
