// The profile photo: shown when there is one; a new one is checked here (type, 1 MB) before
// PATCH /auth/avatar sends the file itself.
import { type ChangeEvent, useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { ErrorText, type Msg } from '../../components/field';
import { common } from '../../i18n/common';
import { type ApiError, handleError } from '../../lib/api';
import { Said, useSaid } from '../../components/said';
import { AVATAR_ACCEPT, checkAvatar, uploadAvatar } from './avatar-file';
import type { UserInfo } from '../../lib/api-types.gen';
import { byReason, hasReason, type ReasonMap } from '../../lib/reasons';

const m = defineMessages({
  alt: { id: 'info.avatar.alt', defaultMessage: 'Your profile photo' },
  none: { id: 'info.avatar.none', defaultMessage: 'No profile photo yet' },
  choose: { id: 'info.avatar.choose', defaultMessage: 'Choose a new profile photo' },
  hint: { id: 'info.avatar.hint', defaultMessage: 'PNG, JPEG or WebP, at most 1 MB.' },
  tooLarge: { id: 'info.avatar.tooLarge', defaultMessage: 'The image is larger than 1 MB. Please choose a smaller one.' },
  type: { id: 'info.avatar.type', defaultMessage: 'Please choose a PNG, JPEG or WebP image.' },
  uploading: { id: 'info.avatar.uploading', defaultMessage: 'Uploading…' },
  saved: { id: 'info.avatar.saved', defaultMessage: 'Your profile photo has been updated' },
});

/** The server's refusals of the file itself, shown at the field. */
const REFUSED: ReasonMap<Msg> = { AVATAR_TOO_LARGE: m.tooLarge, AVATAR_INVALID: m.type };

/** Errors that mean "try later" rather than something the default handling should say. */
function isTransient(e: ApiError): boolean {
  return e.code === 0 || e.code >= 500 || hasReason(e, 'NOT_FOUND', 'METHOD_NOT_ALLOWED');
}

export function Avatar({ info, onInfo }: { info: UserInfo; onInfo: (u: UserInfo) => void }) {
  const intl = useIntl();
  const id = useId();
  const [error, setError] = useState<Msg>(null);
  const [busy, setBusy] = useState(false);
  const said = useSaid();
  const choose = async (e: ChangeEvent<HTMLInputElement>) => {
    const input = e.currentTarget;
    const file = input.files?.[0];
    input.value = ''; // the same file may be chosen again after a failure
    if (!file) return;
    const problem = checkAvatar(file);
    if (problem) {
      setError(problem === 'type' ? m.type : m.tooLarge);
      return;
    }
    setError(null);
    setBusy(true);
    const res = await uploadAvatar(file);
    setBusy(false);
    const refused = res.success ? undefined : byReason(REFUSED, res.error.reason);
    if (res.success) {
      onInfo({ ...info, avatar: res.data.avatar });
      said.say(intl.formatMessage(m.saved));
    } else if (refused) setError(refused);
    else if (isTransient(res.error)) {
      setError(common.uploadError);
    } else handleError(res.error);
  };
  return (
    <div className="avatar" aria-busy={busy}>
      {info.avatar ? (
        <img data-testid="avatar-img" src={info.avatar} alt={intl.formatMessage(m.alt)} width={96} height={96} />
      ) : (
        <div className="avatar-none">
          <span aria-hidden="true">{[...(info.displayName || info.userName || '?')][0]?.toUpperCase()}</span>
          <span className="muted">
            <FormattedMessage {...m.none} />
          </span>
        </div>
      )}
      <div className="avatar-pick">
        {/* The label is the visible button; the native input stays focusable but out of sight, so
            its browser-language "No file chosen" text does not show on a page in another language. */}
        <label htmlFor={id} className="file-button">
          <FormattedMessage {...(busy ? m.uploading : m.choose)} />
        </label>
        <input
          id={id}
          type="file"
          name="avatar"
          accept={AVATAR_ACCEPT}
          data-testid="avatar-input"
          disabled={busy}
          aria-invalid={!!error}
          aria-describedby={`${id}h ${id}e`}
          onChange={(e) => void choose(e)}
        />
        <p id={`${id}h`} className="hint muted">
          <FormattedMessage {...m.hint} />
        </p>
        <ErrorText id={`${id}e`} error={error} />
        <Said said={said.said} testId="avatar-said" />
      </div>
    </div>
  );
}
