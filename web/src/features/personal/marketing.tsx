// The marketing opt-in (spec §3 advertisement, isSubscribe): one checkbox, saved as it changes.
import { useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { setAdvertisement } from './api';
import { Said, useSaid } from '../../components/said';
import type { UserInfo } from '../../lib/api-types.gen';

const m = defineMessages({
  heading: { id: 'secure.ad.heading', defaultMessage: 'Marketing messages' },
  text: { id: 'secure.ad.intro', defaultMessage: 'We send product news and event invitations only if you agree. You can change your mind at any time.' },
  label: { id: 'secure.ad.label', defaultMessage: 'Send me product news and event invitations' },
  on: { id: 'secure.ad.on', defaultMessage: 'You will receive product news and event invitations' },
  off: { id: 'secure.ad.off', defaultMessage: 'You will no longer receive product news and event invitations' },
});

export function Marketing({ info, onInfo }: { info: UserInfo; onInfo: (u: UserInfo) => void }) {
  const intl = useIntl();
  const id = useId();
  // The box shows the new choice at once while it is saved, and goes back if saving fails.
  const [pending, setPending] = useState<boolean | null>(null);
  // Said under the box, where the person is (not a toast at the top of the page).
  const said = useSaid();
  const change = async (subscribe: boolean) => {
    if (pending !== null) return; // one save at a time; focus stays on the box meanwhile
    setPending(subscribe);
    const res = await setAdvertisement({ advertisement: subscribe ? 'subscribe' : 'unsubscribe' });
    setPending(null);
    if (res.success) {
      onInfo(res.data);
      said.say(intl.formatMessage(res.data.isSubscribe ? m.on : m.off));
    }
  };
  return (
    <section className="card" aria-labelledby="ad-title">
      <h2 id="ad-title">
        <FormattedMessage {...m.heading} />
      </h2>
      <p className="muted" id={`${id}-d`}>
        <FormattedMessage {...m.text} />
      </p>
      <div className="check">
        <input
          id={id}
          type="checkbox"
          data-testid="advertisement"
          checked={pending ?? info.isSubscribe}
          aria-busy={pending !== null}
          aria-describedby={`${id}-d`}
          onChange={(e) => void change(e.target.checked)}
        />
        <label htmlFor={id}>
          <FormattedMessage {...m.label} />
        </label>
      </div>
      <Said said={said.said} testId="advertisement-said" />
    </section>
  );
}
