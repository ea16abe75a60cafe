// What the webhooks section and its delivery log share: the line below the admin role and an
// event kind's words.
import { defineMessages, FormattedMessage, type MessageDescriptor } from 'react-intl';
import { eventNames } from './labels';

const m = defineMessages({
  adminsOnly: { id: 'admin.webhooks.adminsOnly', defaultMessage: 'Only administrators change the endpoints and replay their deliveries.' },
});

export const adminsOnly = m.adminsOnly;

/** A kind's words and its name (the name alone for a kind this page does not know). */
export function KindName({ kind }: { kind: string }) {
  const msg = (eventNames as Record<string, MessageDescriptor | undefined>)[kind];
  return (
    <>
      {msg ? <FormattedMessage {...msg} /> : null} <code>{kind}</code>
    </>
  );
}
