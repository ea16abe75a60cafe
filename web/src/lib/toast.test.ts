// Spec §9: at most 2 toasts at a time, the oldest goes first.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as toast from './toast';

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  for (const t of toast.current()) toast.dismiss(t.id);
  vi.useRealTimers();
});

describe('toasts', () => {
  it('keeps at most 2, dropping the oldest', () => {
    expect(toast.MAX_TOASTS).toBe(2);
    toast.show('error', 'one');
    toast.show('error', 'two');
    toast.show('info', 'three');
    expect(toast.current().map((t) => t.text)).toEqual(['two', 'three']);
    toast.show('success', 'four');
    expect(toast.current().map((t) => t.text)).toEqual(['three', 'four']);
  });
  it('disappear after their time (3 s by default); 0 keeps them', () => {
    toast.show('error', 'a');
    const keep = toast.show('loading', 'b', 0);
    vi.advanceTimersByTime(2999);
    expect(toast.current()).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(toast.current().map((t) => t.id)).toEqual([keep]);
    vi.advanceTimersByTime(60_000);
    expect(toast.current()).toHaveLength(1);
  });
  it('notifies subscribers and stops after unsubscribe', () => {
    const seen: number[] = [];
    const off = toast.subscribe((t) => seen.push(t.length));
    const id = toast.show('info', 'x');
    toast.dismiss(id);
    off();
    toast.show('info', 'y');
    expect(seen).toEqual([1, 0]);
  });
  it('an error while a form with a place for it is in use is said there, not as a toast; elsewhere a toast', () => {
    const form = document.createElement('form');
    const button = document.createElement('button');
    button.type = 'button';
    form.append(button);
    document.body.append(form);
    const said: string[] = [];
    const off = toast.slot(form, (t) => said.push(t));
    button.click();
    toast.show('error', 'offline');
    toast.show('info', 'a notice');
    expect(said).toEqual(['offline']);
    expect(toast.current().map((t) => t.text)).toEqual(['a notice']);
    // Clicked outside any form: a toast again.
    document.body.click();
    toast.show('error', 'later');
    expect(said).toEqual(['offline']);
    expect(toast.current().map((t) => t.text)).toEqual(['a notice', 'later']);
    // A form gone has no place.
    button.click();
    off();
    toast.show('error', 'gone');
    expect(said).toEqual(['offline']);
    form.remove();
  });
});
