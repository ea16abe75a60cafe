// What a card of "My company" shows while its list loads, or when it could not (its own words),
// with a retry.
import { FormattedMessage, type MessageDescriptor } from 'react-intl';

type Words = { loading: MessageDescriptor; loadFailed: MessageDescriptor; retry: MessageDescriptor };

export function Pending({ failed, onRetry, said }: { failed: boolean; onRetry: () => void; said: Words }) {
  return failed ? (
    <div role="alert">
      <p>
        <FormattedMessage {...said.loadFailed} />
      </p>
      <button type="button" onClick={onRetry}>
        <FormattedMessage {...said.retry} />
      </button>
    </div>
  ) : (
    <p className="muted" aria-live="polite">
      <FormattedMessage {...said.loading} />
    </p>
  );
}
