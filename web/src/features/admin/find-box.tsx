// The find box of the accounts screen (issue 34): one text that may be a mail, a phone (whole, with
// or without +86, or its last four digits), a username, a display name or a company's beginning
// (GET /admin/search), and its matches, a table per kind of match with "More" for that kind; and
// the lists of locked and of suspended accounts (GET /admin/held), newest first.
import { type FormEvent, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { ErrorText, type Msg } from '../../components/field';
import { When } from '../../components/when';
import { errorText } from '../../lib/api';
import { type FindGroup, type FindKind, type Held, held, type HeldPage, search } from './api';
import { type AccountColumn, AccountTable } from './account-table';
import { Section, useConsole } from './context';
import { statusNames } from './labels';

const m = defineMessages({
  heading: { id: 'admin.find.heading', defaultMessage: 'Find accounts' },
  label: { id: 'admin.find.label', defaultMessage: 'Mail, phone, username, display name or company' },
  hint: {
    id: 'admin.find.hint',
    defaultMessage:
      'A whole mail address; a phone number, with or without +86, or its last four digits; or the beginning of a username, a display name or a company name.',
  },
  button: { id: 'admin.find.button', defaultMessage: 'Find' },
  required: { id: 'admin.find.required', defaultMessage: 'Enter what to look for' },
  none: { id: 'admin.find.none', defaultMessage: 'No account matches.' },
  count: { id: 'admin.find.count', defaultMessage: '{count, plural, one {# account found} other {# accounts found}}' },
  caption: { id: 'admin.find.caption', defaultMessage: 'Matched by {kind}' },
  more: { id: 'admin.find.more', defaultMessage: 'More matches by {kind}' },
  userName: { id: 'admin.find.col.userName', defaultMessage: 'Username' },
  displayName: { id: 'admin.find.col.displayName', defaultMessage: 'Display name' },
  mail: { id: 'admin.find.col.mail', defaultMessage: 'Mail' },
  phone: { id: 'admin.find.col.phone', defaultMessage: 'Phone' },
  company: { id: 'admin.find.col.company', defaultMessage: 'Company' },
  status: { id: 'admin.find.col.status', defaultMessage: 'Status' },
  heldHeading: { id: 'admin.held.heading', defaultMessage: 'Locked and suspended accounts' },
  heldHint: { id: 'admin.held.hint', defaultMessage: 'Newest first. A lock whose time is past is not listed.' },
  showLocked: { id: 'admin.held.locked', defaultMessage: 'Locked accounts' },
  showSuspended: { id: 'admin.held.suspended', defaultMessage: 'Suspended accounts' },
  lockedUntil: { id: 'admin.held.col.lockedUntil', defaultMessage: 'Locked until' },
  suspendedAt: { id: 'admin.held.col.suspendedAt', defaultMessage: 'Suspended since' },
  heldNone: { id: 'admin.held.none', defaultMessage: 'No accounts in this list.' },
  heldMore: { id: 'admin.held.more', defaultMessage: 'More' },
});

/** What each kind of match is called. */
export const kindNames: Record<FindKind, MessageDescriptor> = defineMessages({
  mail: { id: 'admin.find.kind.mail', defaultMessage: 'mail address' },
  phone: { id: 'admin.find.kind.phone', defaultMessage: 'phone number' },
  phoneEnd: { id: 'admin.find.kind.phoneEnd', defaultMessage: "phone number's last four digits" },
  userId: { id: 'admin.find.kind.userId', defaultMessage: 'user id' },
  userName: { id: 'admin.find.kind.userName', defaultMessage: 'username' },
  displayName: { id: 'admin.find.kind.displayName', defaultMessage: 'display name' },
  company: { id: 'admin.find.kind.company', defaultMessage: 'company name' },
});

type Row = HeldPage['accounts'][number] & { displayName?: string | null };

/** The accounts of a group or a list, masked as the server answers them. */
function AccountsTable({ caption, rows, last, testId }: { caption: string; rows: Row[]; last?: AccountColumn<Row>; testId: string }) {
  const head = (d: MessageDescriptor) => <FormattedMessage {...d} />;
  const columns: AccountColumn<Row>[] = [
    { head: head(m.displayName), cell: (a) => a.displayName ?? '–' },
    { head: head(m.mail), cell: (a) => a.mail ?? '–' },
    { head: head(m.phone), cell: (a) => a.phone ?? '–' },
    { head: head(m.company), cell: (a) => a.company ?? '–' },
    { head: head(m.status), cell: (a) => <FormattedMessage {...(statusNames[a.status] ?? statusNames.active)} /> },
    ...(last ? [last] : []),
  ];
  return <AccountTable caption={caption} userNameHead={head(m.userName)} columns={columns} rows={rows} testId={testId} />;
}

export function FindBox() {
  const id = useId();
  const intl = useIntl();
  const { guard } = useConsole();
  const input = useRef<HTMLInputElement>(null);
  const [q, setQ] = useState('');
  const [asked, setAsked] = useState('');
  const [error, setError] = useState<Msg>(null);
  const [groups, setGroups] = useState<FindGroup[] | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const text = q.trim();
    if (!text) {
      setError(m.required);
      input.current?.focus();
      return;
    }
    setBusy(true);
    const r = await guard(() => search(text));
    setBusy(false);
    if (!r) return;
    if (!r.success) {
      setError(errorText(r.error));
      input.current?.focus();
      return;
    }
    setError(null);
    setAsked(text);
    setGroups(r.data.groups);
  };
  const more = async (g: FindGroup) => {
    setBusy(true);
    const r = await guard(() => search(asked, g.matched, g.next));
    setBusy(false);
    if (!r) return;
    if (!r.success) return setError(errorText(r.error));
    const page = r.data.groups[0];
    setGroups((old) => (old ?? []).map((o) => (o.matched === g.matched ? { ...o, accounts: [...o.accounts, ...(page?.accounts ?? [])], next: page?.next } : o)));
  };
  const count = (groups ?? []).reduce((n, g) => n + g.accounts.length, 0);
  return (
    <Section title={<FormattedMessage {...m.heading} />}>
      <form className="console-form" role="search" onSubmit={(e) => void submit(e)} noValidate data-testid="search-form">
        <div className="inline-fields">
          <div className="grow">
            <label htmlFor={`${id}q`}>
              <FormattedMessage {...m.label} />
            </label>
            <input
              id={`${id}q`}
              ref={input}
              name="q"
              type="search"
              value={q}
              maxLength={100}
              autoComplete="off"
              spellCheck={false}
              aria-invalid={!!error}
              aria-describedby={`${id}h ${id}e`}
              onChange={(e) => {
                setQ(e.target.value);
                setError(null);
              }}
            />
          </div>
          <button type="submit" className="primary" disabled={busy}>
            <FormattedMessage {...m.button} />
          </button>
        </div>
        <p id={`${id}h`} className="hint muted">
          <FormattedMessage {...m.hint} />
        </p>
        <ErrorText id={`${id}e`} error={error} />
      </form>
      <p role="status" className="muted" data-testid="search-count">
        {groups && (count === 0 ? <FormattedMessage {...m.none} /> : <FormattedMessage {...m.count} values={{ count }} />)}
      </p>
      {groups?.map((g) => {
        const kind = intl.formatMessage(kindNames[g.matched]);
        return (
          <div key={g.matched} className="found-group" data-testid={`found-${g.matched}`}>
            <AccountsTable caption={intl.formatMessage(m.caption, { kind })} rows={g.accounts} testId={`matches-${g.matched}`} />
            {g.next && (
              <button type="button" onClick={() => void more(g)} disabled={busy}>
                <FormattedMessage {...m.more} values={{ kind }} />
              </button>
            )}
          </div>
        );
      })}
    </Section>
  );
}

export function HeldLists() {
  const id = useId();
  const intl = useIntl();
  const { guard } = useConsole();
  const [which, setWhich] = useState<Held | null>(null);
  const [rows, setRows] = useState<Row[]>([]);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [error, setError] = useState<Msg>(null);
  const [busy, setBusy] = useState(false);
  const load = async (w: Held, after?: string) => {
    setBusy(true);
    const r = await guard(() => held(w, after));
    setBusy(false);
    if (!r) return;
    if (!r.success) return setError(errorText(r.error));
    setError(null);
    setWhich(w);
    setRows((old) => (after ? [...old, ...r.data.accounts] : r.data.accounts));
    setNext(r.data.next);
  };
  const label = which === 'locked' ? m.showLocked : m.showSuspended;
  return (
    <Section title={<FormattedMessage {...m.heldHeading} />}>
      <p className="hint muted">
        <FormattedMessage {...m.heldHint} />
      </p>
      <div className="inline-fields" data-testid="held-choice">
        {(['locked', 'suspended'] as const).map((w) => (
          <button key={w} type="button" aria-pressed={which === w} disabled={busy} onClick={() => void load(w)} data-testid={`held-${w}`}>
            <FormattedMessage {...(w === 'locked' ? m.showLocked : m.showSuspended)} />
          </button>
        ))}
      </div>
      <ErrorText id={`${id}e`} error={error} />
      {which &&
        (rows.length === 0 ? (
          <p className="muted" role="status">
            <FormattedMessage {...m.heldNone} />
          </p>
        ) : (
          <AccountsTable
            caption={intl.formatMessage(label)}
            rows={rows}
            testId="held"
            last={{
              head: <FormattedMessage {...(which === 'locked' ? m.lockedUntil : m.suspendedAt)} />,
              cell: (a) => {
                const at = which === 'locked' ? a.lockedUntil : a.suspendedAt;
                return at ? <When at={at} /> : '–';
              },
            }}
          />
        ))}
      {which && next && (
        <button type="button" onClick={() => void load(which, next)} disabled={busy} data-testid="held-more">
          <FormattedMessage {...m.heldMore} />
        </button>
      )}
    </Section>
  );
}
