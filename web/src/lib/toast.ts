// A tiny toast store: at most 2 toasts at a time (spec §9); the oldest goes first. An error
// while the person is using a form (the last form they submitted or clicked in) is said by that
// form instead, when it has a place for it (`slot`: use-form.ts, components/form-error.tsx).
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

let at: Element | null = null;
if (typeof document !== 'undefined')
  for (const t of ['submit', 'click']) document.addEventListener(t, (e) => void (at = (e.target as Element).closest?.('form') ?? null), true);
const slots = new Map<Element, (text: string) => void>();

/** The form's place for errors while it is the one in use; answers the removal. */
export function slot(form: Element, say: (text: string) => void): () => void {
  slots.set(form, say);
  return () => slots.delete(form);
}

export function show(kind: ToastKind, text: string, ms = 3000): number {
  const say = kind === 'error' && at && slots.get(at);
  if (say) return say(text), 0;
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
