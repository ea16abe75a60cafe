// A protocol's setting that is a choice (protocols.ts `choices`: Feishu's edition), with its label:
// the same select in My company's connection form and in the console's.
import { useId } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import type { Setting } from './protocols';

export function SettingChoice({ setting, value, onChange }: { setting: Setting; value: string; onChange: (v: string) => void }) {
  const intl = useIntl();
  const id = useId();
  return (
    <>
      <label htmlFor={id}>
        <FormattedMessage {...setting.label} />
      </label>
      <select id={id} name={setting.key} value={value} onChange={(e) => onChange(e.target.value)} data-testid={`org-conn-${setting.key}`}>
        {(setting.choices ?? []).map((c) => (
          <option key={c.value} value={c.value}>
            {intl.formatMessage(c.label)}
          </option>
        ))}
      </select>
    </>
  );
}
