// What a personal page shows while its account loads, or when it could not.
import { defineMessages, FormattedMessage } from 'react-intl';

const m = defineMessages({
  loading: { id: 'info.loading', defaultMessage: 'Loading your profile…' },
  loadFailed: { id: 'info.loadFailed', defaultMessage: 'Your profile could not be loaded.' },
  retry: { id: 'info.retry', defaultMessage: 'Try again' },
});

export function LoadState({ failed, onRetry }: { failed: boolean; onRetry: () => void }) {
  return failed ? (
    <div className="card" role="alert">
      <p>
        <FormattedMessage {...m.loadFailed} />
      </p>
      <button type="button" onClick={onRetry}>
        <FormattedMessage {...m.retry} />
      </button>
    </div>
  ) : (
    <p className="loading" aria-live="polite">
      <FormattedMessage {...m.loading} />
    </p>
  );
}
