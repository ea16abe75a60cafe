// A form closed behind its row (issue 34 item 2): a summary line and a button ("Change password",
// "Bind e-mail address"...) that opens the form in place, under the row. Opening moves the focus
// to the form's first field; closing (the same button, now "Cancel", or the form's own cancel)
// gives it back to the button. A form that succeeds closes itself and its confirmation is said on
// the row, next to the button the person comes back to (a polite live region, components/said.tsx).
// The pages stay short on a phone until a form is opened (docs/web-experience.md "Account centre").
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor } from 'react-intl';
import { Said, useSaid } from '../../components/said';

const m = defineMessages({
  cancel: { id: 'personal.fold.cancel', defaultMessage: 'Cancel' },
});

export interface FoldControls {
  /** Closes the form, the focus back on its button; with a text, says it on the row. */
  close: (said?: string) => void;
}

interface Props {
  /** Test ids: `{name}-open` (the button), `{name}-panel`, and `said` for the confirmation. */
  name: string;
  summary: ReactNode;
  /** The button's words while the form is closed. */
  action: MessageDescriptor;
  /** Said to screen readers after them (a short "Change" names what it changes). */
  hint?: string;
  saidTestId: string;
  children: (c: FoldControls) => ReactNode;
  /** Opens the form when it changes (a count; 0 is no request): a banner's "Complete my profile". */
  openRequest?: number;
}

const FIELD = 'input:not([type="hidden"]):not([hidden]), select, textarea';

export function Fold({ name, summary, action, hint, saidTestId, children, openRequest = 0 }: Props) {
  const panelId = useId();
  const [open, setOpen] = useState(false);
  const said = useSaid();
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  // Opening: the focus to the first field. A change of `open` from true to false was a close.
  const wasOpen = useRef(false);
  useEffect(() => {
    if (open) panel.current?.querySelector<HTMLElement>(FIELD)?.focus();
    else if (wasOpen.current) button.current?.focus();
    wasOpen.current = open;
  }, [open]);
  useEffect(() => {
    if (openRequest > 0) {
      setOpen(true);
      // Already open: the focus still goes to its first field.
      panel.current?.querySelector<HTMLElement>(FIELD)?.focus();
    }
  }, [openRequest]);
  const close = (text?: string) => {
    setOpen(false);
    if (text) said.say(text);
  };
  return (
    <div className="fold" data-open={open || undefined}>
      <div className="fold-row">
        <div className="fold-summary">{summary}</div>
        <button
          type="button"
          ref={button}
          aria-expanded={open}
          aria-controls={open ? panelId : undefined}
          data-testid={`${name}-open`}
          onClick={() => {
            said.clear();
            setOpen((o) => !o);
          }}
        >
          <FormattedMessage {...(open ? m.cancel : action)} />
          {hint && !open && <span className="sr-only"> {hint}</span>}
        </button>
      </div>
      <Said said={said.said} testId={saidTestId} />
      {open && (
        <div id={panelId} ref={panel} className="fold-panel" data-testid={`${name}-panel`}>
          {children({ close })}
        </div>
      )}
    </div>
  );
}
