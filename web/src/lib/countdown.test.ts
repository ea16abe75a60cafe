// The resend countdown of the send-code buttons (spec §9: 60 s), with fake timers.
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { remaining, RESEND_SECONDS, useCountdown } from './countdown';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-03-01T10:00:00Z'));
});
afterEach(() => vi.useRealTimers());

describe('remaining', () => {
  const t0 = 1_000_000;
  it('is 0 when not started', () => {
    expect(remaining(null, t0, 60)).toBe(0);
  });
  it.each([
    [0, 60],
    [1, 60],
    [999, 60],
    [1000, 59],
    [1001, 59],
    [59_000, 1],
    [59_999, 1],
    [60_000, 0],
    [3_600_000, 0],
  ])('after %s ms -> %s s (whole seconds, rounded up)', (elapsed, left) => {
    expect(remaining(t0, t0 + elapsed, 60)).toBe(left);
  });
  it('never exceeds the length (a clock that went back)', () => {
    expect(remaining(t0, t0 - 10_000, 60)).toBe(60);
  });
});

describe('useCountdown', () => {
  it('the default is the 60 s resend delay', () => {
    expect(RESEND_SECONDS).toBe(60);
  });

  it('is idle at 0, counts down each second after start, and stops at 0', () => {
    const { result } = renderHook(() => useCountdown());
    expect(result.current.left).toBe(0);
    act(() => result.current.start());
    expect(result.current.left).toBe(60);
    act(() => vi.advanceTimersByTime(1000));
    expect(result.current.left).toBe(59);
    act(() => vi.advanceTimersByTime(58_000));
    expect(result.current.left).toBe(1);
    act(() => vi.advanceTimersByTime(1000));
    expect(result.current.left).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('follows the clock, not the number of ticks (a throttled background tab)', () => {
    const { result } = renderHook(() => useCountdown());
    act(() => result.current.start());
    // The tab was asleep: the clock moved 45 s but only one tick ran.
    act(() => {
      vi.setSystemTime(Date.now() + 45_000);
      vi.advanceTimersByTime(1000);
    });
    expect(result.current.left).toBe(14);
  });

  it('start(n) counts another length; a restart begins again', () => {
    const { result } = renderHook(() => useCountdown(30));
    act(() => result.current.start());
    expect(result.current.left).toBe(30);
    act(() => vi.advanceTimersByTime(10_000));
    expect(result.current.left).toBe(20);
    act(() => result.current.start(5));
    expect(result.current.left).toBe(5);
    act(() => vi.advanceTimersByTime(5000));
    expect(result.current.left).toBe(0);
  });

  it('stops its timer on unmount', () => {
    const { result, unmount } = renderHook(() => useCountdown());
    act(() => result.current.start());
    expect(vi.getTimerCount()).toBe(1);
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});
