// Passkeys in the security centre (issue 13, docs/passkeys-design.md §4.1): the list (name,
// added, last used, synced or bound to one device), "Add a passkey" (the browser's prompt; the
// server names it; at most 10), rename in the row, remove after a confirmation. Adding and
// removing need a fresh proof (REAUTH_REQUIRED: the re-authentication dialog, then once more).
// Refusals show under the section's buttons; a prompt the person closed is a quiet note.
// Hidden for the page's life when the server has no passkeys (PASSKEY_UNAVAILABLE, or a 404).
import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Field, type Msg } from '../../components/field';
import { type Answer, type ApiError, errorText, handleError, type Result } from '../../lib/api';
import { deletePasskey, listPasskeys, renamePasskey } from './api';
import { turnOff, usePasskeys, useServerPasskeys } from '../../lib/passkey-gate';
import { hasReason } from '../../lib/reasons';
import { Dialog } from '../../components/dialog';
import { When } from '../../components/when';
import { LoadState } from './load-state';

const m = defineMessages({
  heading: { id: 'secure.passkeys.heading', defaultMessage: 'Passkeys' },
  intro: {
    id: 'secure.passkeys.intro',
    defaultMessage: 'Sign in with your fingerprint, face or screen lock instead of a password. A passkey stays on your device or in your password manager.',
  },
  count: { id: 'secure.passkeys.count', defaultMessage: '{n, plural, =0 {No passkeys yet.} one {# passkey} other {# passkeys}}' },
  add: { id: 'secure.passkeys.add', defaultMessage: 'Add a passkey' },
  atLimit: { id: 'secure.passkeys.atLimit', defaultMessage:
      '{n, plural, one {You have # passkey, the most an account can have. Remove it to add another.} other {You have # passkeys, the most an account can have. Remove one to add another.}}' },
  added: { id: 'secure.passkeys.added', defaultMessage: 'Passkey added' },
  cancelled: { id: 'secure.passkeys.cancelled', defaultMessage: 'No passkey was added: the request was cancelled.' },
  created: { id: 'secure.passkeys.created', defaultMessage: 'Added {when}' },
  lastUsed: { id: 'secure.passkeys.lastUsed', defaultMessage: 'Last used {when}' },
  neverUsed: { id: 'secure.passkeys.neverUsed', defaultMessage: 'Not used yet' },
  synced: { id: 'secure.passkeys.synced', defaultMessage: 'Synced' },
  device: { id: 'secure.passkeys.device', defaultMessage: 'On one device' },
  rename: { id: 'secure.passkeys.rename', defaultMessage: 'Rename' },
  renameOf: { id: 'secure.passkeys.renameOf', defaultMessage: 'Rename {name}' },
  name: { id: 'secure.passkeys.name', defaultMessage: 'Passkey name' },
  nameRule: { id: 'secure.passkeys.nameRule', defaultMessage: 'Enter a name of 1 to 64 characters' },
  save: { id: 'secure.passkeys.save', defaultMessage: 'Save' },
  cancel: { id: 'secure.passkeys.cancel', defaultMessage: 'Cancel' },
  remove: { id: 'secure.passkeys.remove', defaultMessage: 'Remove' },
  removeOf: { id: 'secure.passkeys.removeOf', defaultMessage: 'Remove {name}' },
  removeTitle: { id: 'secure.passkeys.removeTitle', defaultMessage: 'Remove this passkey?' },
  removeText: {
    id: 'secure.passkeys.removeText',
    defaultMessage: 'You will no longer be able to sign in with it. It may stay listed on your device until you delete it there.',
  },
  removed: { id: 'secure.passkeys.removed', defaultMessage: 'Passkey removed' },
  loading: { id: 'secure.passkeys.loading', defaultMessage: 'Loading…' },
  failed: { id: 'secure.passkeys.failed', defaultMessage: 'Your passkeys could not be loaded.' },
  retry: { id: 'secure.passkeys.retry', defaultMessage: 'Try again' },
});

export const MAX_PASSKEYS = 10;

/** One passkey of the list, as GET /auth/passkeys gives it. */
export type PasskeyView = Answer<'GET /auth/passkeys'>['passkeys'][number];

type Guard = <T>(action: () => Promise<Result<T>>) => Promise<Result<T> | null>;

const unavailable = (e: ApiError) => hasReason(e, 'PASSKEY_UNAVAILABLE') || (e.code === 404 && !hasReason(e, 'PASSKEY_NOT_FOUND'));

export function Passkeys({ guard }: { guard: Guard }) {
  const intl = useIntl();
  const server = useServerPasskeys();
  const browser = usePasskeys();
  const [items, setItems] = useState<PasskeyView[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);
  // The section's note under "Add": a refusal (alert) or the quiet cancellation (status).
  const [note, setNote] = useState<{ text: string; quiet: boolean } | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [asking, setAsking] = useState<PasskeyView | null>(null);
  const addRef = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLUListElement>(null);
  /** Focus back on a row's control once its editor is gone. */
  const focusRow = (id: string, control: string) =>
    requestAnimationFrame(() =>
      [...(list.current?.querySelectorAll<HTMLElement>('li') ?? [])].find((li) => li.dataset.id === id)?.querySelector<HTMLElement>(`[data-testid="${control}"]`)?.focus(),
    );

  const load = useCallback(async () => {
    setFailed(false);
    const res = await listPasskeys();
    if (res.success) return setItems((res.data?.passkeys ?? []).filter((p) => p && typeof p.id === 'string'));
    if (unavailable(res.error)) return turnOff();
    if (hasReason(res.error, 'AUTHORIZATION_FAILED')) handleError(res.error);
    setFailed(true);
  }, []);
  useEffect(() => void load(), [load]);

  /** A refusal of this section: a lost session goes to sign-in; the rest shows here. */
  const refused = (e: ApiError) => {
    if (hasReason(e, 'AUTHORIZATION_FAILED')) return handleError(e);
    if (unavailable(e)) return turnOff();
    setNote({ text: errorText(e), quiet: false });
  };

  const add = async () => {
    setNote(null);
    setBusy(true);
    const pk = await import('../../lib/passkey');
    const res = await guard(async () => {
      const out = await pk.register();
      return out.ok || out.cancelled ? { success: true as const, data: out } : { success: false as const, error: out.error };
    });
    setBusy(false);
    if (!res) return; // the proof was cancelled
    if (!res.success) return refused(res.error);
    if (!res.data.ok) return setNote({ text: intl.formatMessage(m.cancelled), quiet: true });
    setNote({ text: intl.formatMessage(m.added), quiet: true });
    await load();
  };

  const remove = async (p: PasskeyView) => {
    setAsking(null);
    setNote(null);
    setBusy(true);
    const res = await guard(() => deletePasskey(p.id));
    setBusy(false);
    if (!res) return;
    // PASSKEY_NOT_FOUND: gone already, which is what was asked.
    if (!res.success && !hasReason(res.error, 'PASSKEY_NOT_FOUND')) return refused(res.error);
    setItems((list) => list?.filter((x) => x.id !== p.id) ?? null);
    setNote({ text: intl.formatMessage(m.removed), quiet: true });
    addRef.current?.focus();
  };

  if (!server) return null;
  const full = (items?.length ?? 0) >= MAX_PASSKEYS;
  return (
    <section className="card" aria-labelledby="passkeys-title" data-testid="passkeys">
      <h2 id="passkeys-title">
        <FormattedMessage {...m.heading} />
      </h2>
      <p className="muted">
        <FormattedMessage {...m.intro} />
      </p>
      {items ? (
        <>
          <p className="muted" data-testid="passkeys-count">
            <FormattedMessage {...m.count} values={{ n: items.length }} />
          </p>
          {items.length > 0 && (
            <ul ref={list} className="items" data-testid="passkey-list">
              {items.map((p) => (
                <li key={p.id} data-testid="passkey" data-id={p.id}>
                  {renaming === p.id ? (
                    <Rename
                      passkey={p}
                      onDone={(name) => {
                        setRenaming(null);
                        if (name) setItems((all) => all?.map((x) => (x.id === p.id ? { ...x, name } : x)) ?? null);
                        focusRow(p.id, 'passkey-rename');
                      }}
                    />
                  ) : (
                    <>
                      <div>
                        <strong id={`passkey-${p.id}`}>{p.name}</strong>
                        <span className="badge" data-testid="passkey-kind">
                          <FormattedMessage {...(p.backupState ? m.synced : m.device)} />
                        </span>
                        <p className="muted">
                          <FormattedMessage {...m.created} values={{ when: <When at={p.createdAt} /> }} />
                          <br />
                          {p.lastUsedAt ? <FormattedMessage {...m.lastUsed} values={{ when: <When at={p.lastUsedAt} /> }} /> : <FormattedMessage {...m.neverUsed} />}
                        </p>
                      </div>
                      <div className="row-actions">
                        <button type="button" data-testid="passkey-rename" aria-label={intl.formatMessage(m.renameOf, { name: p.name })}
                          disabled={busy} onClick={() => setRenaming(p.id)}>
                          <FormattedMessage {...m.rename} />
                        </button>
                        <button type="button" className="danger" data-testid="passkey-remove" aria-label={intl.formatMessage(m.removeOf, { name: p.name })}
                          disabled={busy} onClick={() => setAsking(p)}>
                          <FormattedMessage {...m.remove} />
                        </button>
                      </div>
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
          {browser && (
            <p>
              <button ref={addRef} type="button" data-testid="passkey-add" disabled={busy || full}
                aria-describedby={full ? 'passkeys-full' : undefined} onClick={() => void add()}>
                <FormattedMessage {...m.add} />
              </button>
            </p>
          )}
          {browser && full && (
            <p id="passkeys-full" className="muted" data-testid="passkeys-full">
              <FormattedMessage {...m.atLimit} values={{ n: items.length }} />
            </p>
          )}
          <p className={note?.quiet ? 'muted' : 'field-error'} role={note?.quiet ? 'status' : 'alert'} data-testid="passkeys-note">
            {note?.text}
          </p>
        </>
      ) : (
        <LoadState section failed={failed} onRetry={() => void load()} said={{ loading: m.loading, loadFailed: m.failed, retry: m.retry }} />
      )}
      {asking && (
        <Dialog testId="passkey-remove-dialog" title={<FormattedMessage {...m.removeTitle} />}
          description={<>{asking.name}<br /><FormattedMessage {...m.removeText} /></>} onCancel={() => setAsking(null)}>
          <div className="actions">
            <button type="button" data-autofocus onClick={() => setAsking(null)}>
              <FormattedMessage {...m.cancel} />
            </button>
            <button type="button" className="primary danger" data-testid="passkey-remove-confirm" onClick={() => void remove(asking)}>
              <FormattedMessage {...m.remove} />
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}

/** The name's inline editor: PATCH /auth/passkeys/{id}; `onDone(name)` (null: cancelled). */
function Rename({ passkey, onDone }: { passkey: PasskeyView; onDone: (name: string | null) => void }) {
  const [value, setValue] = useState(passkey.name);
  const [error, setError] = useState<Msg>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => form.current?.querySelector('input')?.select(), []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const name = value.trim();
    if (!name || [...name].length > 64) return setError(m.nameRule);
    setBusy(true);
    const res = await renamePasskey(passkey.id, name);
    setBusy(false);
    if (res.success) return onDone(res.data?.name ?? name);
    if (hasReason(res.error, 'AUTHORIZATION_FAILED')) handleError(res.error);
    setError(errorText(res.error));
  };
  return (
    <form ref={form} className="rename" data-testid="passkey-rename-form" noValidate onSubmit={(e) => void submit(e)}
      onKeyDown={(e) => e.key === 'Escape' && onDone(null)}>
      <Field name="passkeyName" label={m.name} value={value} maxLength={64} autoComplete="off"
        onChange={(x) => { setValue(x); setError(null); }} error={error} />
      <div className="actions">
        <button type="button" onClick={() => onDone(null)}>
          <FormattedMessage {...m.cancel} />
        </button>
        <button type="submit" className="primary" disabled={busy}>
          <FormattedMessage {...m.save} />
        </button>
      </div>
    </form>
  );
}
