// A tiny toast store: at most 2 toasts at a time (spec §9); the oldest goes first. An error
// while the person is using a form or a section of the account centre (the nearest one with a
// place for errors around what they last submitted or clicked) is said there instead (`slot`:
// use-form.ts, components/form-error.tsx).
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

const slots = new Map<Element, (text: string) => void>();
let at: Element | null = null;
if (typeof document !== 'undefined')
  for (const t of ['submit', 'click'])
    document.addEventListener(
      t,
      (e) => {
        // The nearest place for errors around what the person used (a form, else its section).
        for (at = e.target as Element; at && !slots.has(at); ) at = at.parentElement;
      },
      true,
    );

/** The place for errors of a form (or a section) while it is the one in use; answers the removal. */
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
