// The backup codes, shown once (after enabling two-factor, or regenerating them): download them
// as a text file, copy them, or print them (the print stylesheet shows the codes alone), then
// Done. Done before any of those asks first, in a dialog: the codes cannot be shown again.
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Dialog } from '../../components/dialog';

const m = defineMessages({
  heading: { id: 'secure.backup.heading', defaultMessage: 'Your backup codes' },
  text: {
    id: 'secure.backup.text',
    defaultMessage: 'Use one of these codes to sign in when your authenticator app is not at hand. Each code works once. Save them now: they will not be shown again.',
  },
  list: { id: 'secure.backup.list', defaultMessage: 'Backup codes' },
  download: { id: 'secure.backup.download', defaultMessage: 'Download' },
  copy: { id: 'secure.backup.copy', defaultMessage: 'Copy' },
  print: { id: 'secure.backup.print', defaultMessage: 'Print' },
  copied: { id: 'secure.backup.copied', defaultMessage: 'The backup codes have been copied. Paste them somewhere safe.' },
  copyFailed: {
    id: 'secure.backup.copyFailed',
    defaultMessage: 'The codes could not be copied. Select them and copy them by hand, or download them.',
  },
  done: { id: 'secure.backup.done', defaultMessage: 'Done' },
  confirmTitle: { id: 'secure.backup.confirmTitle', defaultMessage: 'Close without saving the codes?' },
  confirmText: {
    id: 'secure.backup.confirmText',
    defaultMessage: 'You have not downloaded your backup codes. Without them, losing your phone can lock you out of your account.',
  },
  goBack: { id: 'secure.backup.goBack', defaultMessage: 'Go back' },
  skip: { id: 'secure.backup.skip', defaultMessage: 'Close without saving' },
  fileTitle: { id: 'secure.backup.fileTitle', defaultMessage: 'Ciam backup codes' },
  fileAccount: { id: 'secure.backup.fileAccount', defaultMessage: 'Account: {account}' },
  fileNote: { id: 'secure.backup.fileNote', defaultMessage: 'Each code can be used once. Generating new codes makes these invalid.' },
});

export const BACKUP_FILE = 'ciam-backup-codes.txt';

/** The downloaded file: a title, the account, a note, then one code per line. */
export function backupFileText(codes: readonly string[], lines: { title: string; account: string; note: string }): string {
  return [lines.title, lines.account, lines.note, '', ...codes, ''].join('\r\n');
}

/** Saves `text` as a file through a Blob and an object URL. */
export function downloadText(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked later: revoking at once can cancel the download in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function BackupCodes({ codes, account, onDone }: { codes: readonly string[]; account: string; onDone: () => void }) {
  const intl = useIntl();
  const [saved, setSaved] = useState(false);
  const [asking, setAsking] = useState(false);
  const [said, setSaid] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const copy = async () => {
    setSaid('');
    try {
      // Refused without permission or focus; absent on plain http.
      await navigator.clipboard.writeText(codes.join('\n'));
      setSaid(intl.formatMessage(m.copied));
      setSaved(true);
    } catch {
      setSaid(intl.formatMessage(m.copyFailed));
    }
  };
  const print = () => {
    window.print();
    setSaved(true);
  };
  const download = () => {
    const text = backupFileText(codes, {
      title: intl.formatMessage(m.fileTitle),
      account: intl.formatMessage(m.fileAccount, { account }),
      note: intl.formatMessage(m.fileNote),
    });
    downloadText(BACKUP_FILE, text);
    setSaved(true);
  };
  return (
    <div className="backup backup-print">
      <h3 ref={heading} tabIndex={-1}>
        <FormattedMessage {...m.heading} />
      </h3>
      <p>
        <FormattedMessage {...m.text} />
      </p>
      <ol className="codes" data-testid="backup-codes" aria-label={intl.formatMessage(m.list)}>
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <p className="muted" role="status" aria-live="polite" data-testid="backup-said">
        {said}
      </p>
      <div className="actions">
        <button type="button" data-testid="backup-copy" onClick={() => void copy()}>
          <FormattedMessage {...m.copy} />
        </button>
        <button type="button" data-testid="backup-print" onClick={print}>
          <FormattedMessage {...m.print} />
        </button>
        <button type="button" data-testid="backup-download" onClick={download}>
          <FormattedMessage {...m.download} />
        </button>
        <button type="button" className="primary" data-testid="backup-done" onClick={() => (saved ? onDone() : setAsking(true))}>
          <FormattedMessage {...m.done} />
        </button>
      </div>
      {asking && (
        <Dialog
          testId="backup-confirm"
          title={<FormattedMessage {...m.confirmTitle} />}
          description={<FormattedMessage {...m.confirmText} />}
          onCancel={() => setAsking(false)}
        >
          <div className="actions">
            <button type="button" className="danger" data-testid="backup-skip" onClick={onDone}>
              <FormattedMessage {...m.skip} />
            </button>
            <button type="button" className="primary" data-autofocus onClick={() => setAsking(false)}>
              <FormattedMessage {...m.goBack} />
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
