// What the webhooks section and its delivery log share: the registry's refusal kept from the
// console's gate, the words of an error, and an event kind's words.
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { type ApiError, errorText, type Result } from '../../lib/api';
import { hasReason } from '../../lib/reasons';
import { eventNames } from './labels';

const m = defineMessages({
  adminsOnly: { id: 'admin.webhooks.adminsOnly', defaultMessage: 'Only administrators see and manage the webhook endpoints.' },
});

export const adminsOnly = m.adminsOnly;

/**
 * The registry's refusal of a user without the admin flag (the console's admin role), renamed:
 * the console's gate reads PERMISSION_DENIED as "no console role at all" and would close the
 * console, while here it only means this section is for administrators.
 */
export const DENIED = 'REGISTRY_ADMINS_ONLY' as ApiError['reason'];

/** `call` with its PERMISSION_DENIED renamed [`DENIED`] (give it to the console's guard). */
export function shielded<T>(call: () => Promise<Result<T>>): () => Promise<Result<T>> {
  return async () => {
    const r = await call();
    return !r.success && hasReason(r.error, 'PERMISSION_DENIED') ? { success: false, error: { ...r.error, reason: DENIED } } : r;
  };
}

/** An error's words: "only administrators" for [`DENIED`], else the reason's. */
export function useErrorWords(): (e: ApiError) => string {
  const intl = useIntl();
  return (e) => (e.reason === DENIED ? intl.formatMessage(m.adminsOnly) : errorText(e));
}

/** A kind's words and its name (the name alone for a kind this page does not know). */
export function KindName({ kind }: { kind: string }) {
  const msg = (eventNames as Record<string, MessageDescriptor | undefined>)[kind];
  return (
    <>
      {msg ? <FormattedMessage {...msg} /> : null} <code>{kind}</code>
    </>
  );
}

