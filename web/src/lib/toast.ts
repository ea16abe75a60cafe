// A tiny toast store: at most 2 toasts at a time (spec §9); the oldest goes first.
export type ToastKind = 'error' | 'success' | 'info' | 'loading';
export interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

export const MAX_TOASTS = 2;
let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<(t: Toast[]) => void>();

function emit() {
  for (const l of listeners) l(toasts);
}

export function show(kind: ToastKind, text: string, ms = 3000): number {
  const id = nextId++;
  toasts = [...toasts, { id, kind, text }].slice(-MAX_TOASTS);
  emit();
  if (ms > 0) setTimeout(() => dismiss(id), ms);
  return id;
}

/** Every toast goes: a toast belongs to the screen it was shown on (the shell calls it on a route change). */
export function clear(): void {
  if (!toasts.length) return;
  toasts = [];
  emit();
}

export function dismiss(id: number): void {
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

export function current(): Toast[] {
  return toasts;
}

export function subscribe(l: (t: Toast[]) => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}
