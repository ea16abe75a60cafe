// The support desk's notes on an account's console page (PUT /admin/accounts/{userId}/notes):
// the desk's own text, at most 2,000 characters, with who changed it last and when. Any role
// reads them; an operator writes them (audited as account.notes). Never shown to the customer.
import { type FormEvent, useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { ErrorText, type Msg } from '../../components/field';
import { Said, useSaid } from '../../components/said';
import { When } from '../../components/when';
import { errorText } from '../../lib/api';
import { type AccountPage, saveNotes } from './api';
import { Section, useConsole, useMay } from './context';

export const MAX_NOTES = 2000;

const m = defineMessages({
  heading: { id: 'admin.notes.heading', defaultMessage: 'Support notes' },
  label: { id: 'admin.notes.label', defaultMessage: 'Notes for the support desk' },
  hint: {
    id: 'admin.notes.hint',
    defaultMessage:
      'Only the console shows them; the customer never sees them. At most {max} characters ({left, plural, one {# character} other {# characters}} left).',
  },
  none: { id: 'admin.notes.none', defaultMessage: 'No notes.' },
  last: { id: 'admin.notes.last', defaultMessage: 'Last changed by {name}, {time}' },
  save: { id: 'admin.notes.save', defaultMessage: 'Save the notes' },
  saved: { id: 'admin.notes.saved', defaultMessage: 'The notes are saved.' },
  tooLong: { id: 'admin.notes.tooLong', defaultMessage: 'At most {max} characters' },
});

export function AccountNotes({ a, onSaved }: { a: AccountPage; onSaved: () => void }) {
  const id = useId();
  const intl = useIntl();
  const operator = useMay('operator');
  const { guard } = useConsole();
  const [text, setText] = useState(a.notes?.text ?? '');
  const [error, setError] = useState<Msg>(null);
  const [busy, setBusy] = useState(false);
  const saved = useSaid();
  const length = [...text].length;
  const last = a.notes && (
    <p className="muted" data-testid="notes-last">
      <FormattedMessage {...m.last} values={{ name: a.notes.byName, time: <When at={a.notes.at} /> }} />
    </p>
  );
  if (!operator) {
    return (
      <Section title={<FormattedMessage {...m.heading} />} id="notes">
        {a.notes ? <p className="notes-text" data-testid="notes-text">{a.notes.text}</p> : <p className="muted"><FormattedMessage {...m.none} /></p>}
        {last}
      </Section>
    );
  }
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const area = e.currentTarget.elements.namedItem('notes') as HTMLTextAreaElement | null;
    if (length > MAX_NOTES) {
      setError(intl.formatMessage(m.tooLong, { max: intl.formatNumber(MAX_NOTES) }));
      area?.focus();
      return;
    }
    setBusy(true);
    const r = await guard(() => saveNotes(a.userId, text));
    setBusy(false);
    if (!r) return;
    if (!r.success) {
      setError(errorText(r.error));
      area?.focus();
      return;
    }
    saved.say(intl.formatMessage(m.saved));
    onSaved();
  };
  return (
    <Section title={<FormattedMessage {...m.heading} />} id="notes">
      <form className="console-form" onSubmit={(e) => void submit(e)} noValidate data-testid="notes-form" onInput={saved.clear}>
        <label htmlFor={`${id}n`}>
          <FormattedMessage {...m.label} />
        </label>
        <textarea
          id={`${id}n`}
          name="notes"
          rows={4}
          value={text}
          aria-invalid={!!error}
          aria-describedby={`${id}h ${id}e`}
          onChange={(e) => {
            setText(e.target.value);
            setError(null);
          }}
        />
        <p id={`${id}h`} className="hint muted">
          <FormattedMessage {...m.hint} values={{ max: intl.formatNumber(MAX_NOTES), left: MAX_NOTES - length }} />
        </p>
        <ErrorText id={`${id}e`} error={error} />
        {last}
        <button type="submit" disabled={busy} data-testid="notes-save">
          <FormattedMessage {...m.save} />
        </button>
        <Said said={saved.said} testId="notes-saved" focus />
      </form>
    </Section>
  );
}
