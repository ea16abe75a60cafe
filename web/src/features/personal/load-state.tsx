// What a personal page, or a section of one, shows while its data loads, or when it could not:
// the words are the page's own (its profile by default), the retry loads again.
import { defineMessages, FormattedMessage, type MessageDescriptor } from 'react-intl';

const m = defineMessages({
  loading: { id: 'info.loading', defaultMessage: 'Loading your profile…' },
  loadFailed: { id: 'info.loadFailed', defaultMessage: 'Your profile could not be loaded.' },
  retry: { id: 'info.retry', defaultMessage: 'Try again' },
});

type Words = { loading: MessageDescriptor; loadFailed: MessageDescriptor; retry: MessageDescriptor };

/** `section`: inside a page's section (no card of its own, a muted line while loading). */
export function LoadState({ failed, onRetry, said = m, section = false }: { failed: boolean; onRetry: () => void; said?: Words; section?: boolean }) {
  return failed ? (
    <div className={section ? undefined : 'card'} role="alert">
      <p>
        <FormattedMessage {...said.loadFailed} />
      </p>
      <button type="button" onClick={onRetry}>
        <FormattedMessage {...said.retry} />
      </button>
    </div>
  ) : (
    <p className={section ? 'muted' : 'loading'} aria-live="polite">
      <FormattedMessage {...said.loading} />
    </p>
  );
}
