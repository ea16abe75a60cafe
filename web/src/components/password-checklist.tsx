// The live checklist of the password rules under a new-password field (components/field.tsx):
// each rule ticked as it is met, from lib/validate.ts passwordChecks (one source, the server's
// rules), announced politely. Nothing is ticked on an empty field: "none of ` \ ' \" /" is not
// met by typing nothing, so every rule is neutral (no "met" or "not met") until something is typed.
import { defineMessages, FormattedMessage } from 'react-intl';
import { passwordChecks } from '../lib/validate';

const m = defineMessages({
  met: { id: 'field.ruleMet', defaultMessage: 'met' },
  unmet: { id: 'field.ruleUnmet', defaultMessage: 'not met' },
});

export default function PasswordChecklist({ id, value }: { id: string; value: string }) {
  return (
    <ul id={id} className="pw-rules" aria-live="polite" data-testid="password-rules">
      {passwordChecks.map(([rule, ok]) => {
        const met = !!value && ok(value);
        return (
          <li key={rule.id} className={met ? 'met' : undefined} data-met={met}>
            <span aria-hidden="true">{met ? '✓' : '○'} </span>
            <FormattedMessage {...rule} />
            {value && (
              <span className="sr-only">
                {' ('}
                <FormattedMessage {...(met ? m.met : m.unmet)} />)
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
