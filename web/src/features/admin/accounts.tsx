// Accounts (/{lang}/admin/accounts): the find box and the lists of locked and suspended accounts
// (find-box.tsx), and accounts by company prefix or sign-up day, newest first, 50 at a time with
// "More" (GET /admin/directory). `FindAccount` (one account by an exact value, GET /admin/accounts)
// is the roles screen's.
import { type FormEvent, useId, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { ErrorText, type Msg } from '../../components/field';
import { useTitle } from '../../components/use-title';
import { When } from '../../components/when';
import { errorText } from '../../lib/api';
import { hasReason } from '../../lib/reasons';
import { directory, type DirectoryPage, findAccount, type FindBy, type Found } from './api';
import { Section, useConsole, useLang } from './context';
import { AccountTable } from './account-table';
import { FindBox, HeldLists } from './find-box';
import { statusNames } from './labels';
import { adminPath } from '../../config/console-paths';

const m = defineMessages({
  heading: { id: 'admin.accounts.heading', defaultMessage: 'Accounts' },
  findHeading: { id: 'admin.accounts.find', defaultMessage: 'Find an account' },
  findHint: { id: 'admin.accounts.findHint', defaultMessage: 'The exact value: a mail address, a phone number with its country code (+86…), a username or a user id.' },
  by: { id: 'admin.accounts.by', defaultMessage: 'Find by' },
  value: { id: 'admin.accounts.value', defaultMessage: 'Value' },
  find: { id: 'admin.accounts.findButton', defaultMessage: 'Find' },
  notFound: { id: 'admin.accounts.notFound', defaultMessage: 'No account has that value.' },
  required: { id: 'admin.accounts.required', defaultMessage: 'Enter a value' },
  open: { id: 'admin.accounts.open', defaultMessage: 'Open the account of {name}' },
  listHeading: { id: 'admin.accounts.list', defaultMessage: 'List accounts' },
  listBy: { id: 'admin.accounts.listBy', defaultMessage: 'List by' },
  company: { id: 'admin.accounts.company', defaultMessage: 'Company name (its beginning)' },
  day: { id: 'admin.accounts.day', defaultMessage: 'Sign-up day' },
  list: { id: 'admin.accounts.listButton', defaultMessage: 'List' },
  byCompany: { id: 'admin.accounts.byCompany', defaultMessage: 'By company' },
  byDay: { id: 'admin.accounts.byDay', defaultMessage: 'By sign-up day' },
  none: { id: 'admin.accounts.none', defaultMessage: 'No accounts.' },
  more: { id: 'admin.accounts.more', defaultMessage: 'More' },
  userName: { id: 'admin.accounts.col.userName', defaultMessage: 'Username' },
  companyCol: { id: 'admin.accounts.col.company', defaultMessage: 'Company' },
  created: { id: 'admin.accounts.col.created', defaultMessage: 'Signed up' },
  mail: { id: 'admin.field.mail', defaultMessage: 'Mail' },
  phone: { id: 'admin.field.phone', defaultMessage: 'Phone' },
  userNameBy: { id: 'admin.field.userName', defaultMessage: 'Username' },
  userId: { id: 'admin.field.userId', defaultMessage: 'User id' },
  status: { id: 'admin.field.status', defaultMessage: 'Status' },
  listCaption: { id: 'admin.accounts.caption', defaultMessage: 'Accounts, newest first' },
});

const BY: [FindBy, MessageDescriptor][] = [
  ['mail', m.mail],
  ['phone', m.phone],
  ['userName', m.userNameBy],
  ['userId', m.userId],
];

export function Accounts() {
  useTitle(m.heading);
  return (
    <div className="console-screen">
      <h1>
        <FormattedMessage {...m.heading} />
      </h1>
      <FindBox />
      <HeldLists />
      <Directory />
    </div>
  );
}

/** The find form; `onFound` replaces opening the account (the roles screen picks it instead). */
export function FindAccount({ onFound, heading = m.findHeading }: { onFound?: (a: Found) => void; heading?: MessageDescriptor }) {
  const id = useId();
  const intl = useIntl();
  const lang = useLang();
  const { guard } = useConsole();
  const [by, setBy] = useState<FindBy>('phone');
  const [value, setValue] = useState('');
  const [error, setError] = useState<Msg>(null);
  const [found, setFound] = useState<Found | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const input = e.currentTarget.elements.namedItem('value') as HTMLInputElement | null;
    setFound(null);
    if (!value.trim()) {
      setError(m.required);
      input?.focus();
      return;
    }
    setBusy(true);
    const r = await guard(() => findAccount(by, value.trim()));
    setBusy(false);
    if (!r) return;
    if (r.success) {
      setError(null);
      setFound(r.data.account);
      onFound?.(r.data.account);
    } else {
      setError(hasReason(r.error, 'ACCOUNT_NOT_FOUND') ? m.notFound : errorText(r.error));
      input?.focus();
    }
  };
  return (
    <Section title={<FormattedMessage {...heading} />}>
      <form className="console-form" onSubmit={(e) => void submit(e)} noValidate data-testid="find-form">
        <p id={`${id}h`} className="hint muted">
          <FormattedMessage {...m.findHint} />
        </p>
        <div className="inline-fields">
          <div>
            <label htmlFor={`${id}b`}>
              <FormattedMessage {...m.by} />
            </label>
            <select id={`${id}b`} name="by" value={by} onChange={(e) => setBy(e.target.value as FindBy)}>
              {BY.map(([k, label]) => (
                <option key={k} value={k}>
                  {intl.formatMessage(label)}
                </option>
              ))}
            </select>
          </div>
          <div className="grow">
            <label htmlFor={`${id}v`}>
              <FormattedMessage {...m.value} />
            </label>
            <input
              id={`${id}v`}
              name="value"
              value={value}
              autoComplete="off"
              spellCheck={false}
              aria-invalid={!!error}
              aria-describedby={`${id}h ${id}e`}
              onChange={(e) => {
                setValue(e.target.value);
                setError(null);
              }}
            />
          </div>
          <button type="submit" className="primary" disabled={busy}>
            <FormattedMessage {...m.find} />
          </button>
        </div>
        <ErrorText id={`${id}e`} error={error} />
      </form>
      {found && !onFound && (
        <div className="found" data-testid="found">
          <p>
            <Link to={adminPath(lang, 'account', found.userId)}>
              <FormattedMessage {...m.open} values={{ name: found.userName }} />
            </Link>
          </p>
          <dl className="facts">
            <div>
              <dt>
                <FormattedMessage {...m.status} />
              </dt>
              <dd>
                <FormattedMessage {...(statusNames[found.status] ?? statusNames.active)} />
              </dd>
            </div>
            <div>
              <dt>
                <FormattedMessage {...m.mail} />
              </dt>
              <dd>{found.mail ?? '–'}</dd>
            </div>
            <div>
              <dt>
                <FormattedMessage {...m.phone} />
              </dt>
              <dd>{found.phone ?? '–'}</dd>
            </div>
            <div>
              <dt>
                <FormattedMessage {...m.companyCol} />
              </dt>
              <dd>{found.company ?? '–'}</dd>
            </div>
          </dl>
        </div>
      )}
    </Section>
  );
}

function Directory() {
  const id = useId();
  const intl = useIntl();
  const { guard } = useConsole();
  const [by, setBy] = useState<'company' | 'day'>('company');
  const [value, setValue] = useState('');
  const [error, setError] = useState<Msg>(null);
  const [query, setQuery] = useState<{ by: 'company' | 'day'; value: string } | null>(null);
  const [rows, setRows] = useState<DirectoryPage['accounts']>([]);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const load = async (q: { by: 'company' | 'day'; value: string }, after?: string) => {
    setBusy(true);
    const r = await guard(() => directory(q.by, q.value, after));
    setBusy(false);
    if (!r) return;
    if (!r.success) return setError(errorText(r.error));
    setQuery(q);
    setRows((old) => (after ? [...old, ...r.data.accounts] : r.data.accounts));
    setNext(r.data.next);
  };
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const input = e.currentTarget.elements.namedItem('listValue') as HTMLInputElement | null;
    if (!value.trim()) {
      setError(m.required);
      input?.focus();
      return;
    }
    setError(null);
    void load({ by, value: value.trim() });
  };
  return (
    <Section title={<FormattedMessage {...m.listHeading} />}>
      <form className="console-form" onSubmit={submit} noValidate data-testid="directory-form">
        <fieldset className="choice">
          <legend>
            <FormattedMessage {...m.listBy} />
          </legend>
          {(['company', 'day'] as const).map((k) => (
            <label key={k} className="radio">
              <input
                type="radio"
                name="listBy"
                value={k}
                checked={by === k}
                onChange={() => {
                  setBy(k);
                  setValue('');
                  setError(null);
                }}
              />
              <FormattedMessage {...(k === 'company' ? m.byCompany : m.byDay)} />
            </label>
          ))}
        </fieldset>
        <div className="inline-fields">
          <div className="grow">
            <label htmlFor={`${id}v`}>
              <FormattedMessage {...(by === 'company' ? m.company : m.day)} />
            </label>
            <input
              id={`${id}v`}
              name="listValue"
              type={by === 'day' ? 'date' : 'text'}
              value={value}
              autoComplete="off"
              aria-invalid={!!error}
              aria-describedby={`${id}e`}
              onChange={(e) => {
                setValue(e.target.value);
                setError(null);
              }}
            />
          </div>
          <button type="submit" className="primary" disabled={busy}>
            <FormattedMessage {...m.list} />
          </button>
        </div>
        <ErrorText id={`${id}e`} error={error} />
      </form>
      {query &&
        (rows.length === 0 ? (
          <p className="muted" role="status">
            <FormattedMessage {...m.none} />
          </p>
        ) : (
          <AccountTable
            caption={intl.formatMessage(m.listCaption)}
            userNameHead={<FormattedMessage {...m.userName} />}
            columns={[
              { head: <FormattedMessage {...m.companyCol} />, cell: (a) => a.company ?? '–' },
              { head: <FormattedMessage {...m.created} />, cell: (a) => <When at={a.createdAt} /> },
            ]}
            rows={rows}
            testId="directory"
          />
        ))}
      {query && next && (
        <button type="button" onClick={() => void load(query, next)} disabled={busy} data-testid="directory-more">
          <FormattedMessage {...m.more} />
        </button>
      )}
    </Section>
  );
}
