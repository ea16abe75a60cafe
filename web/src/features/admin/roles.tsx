// Console roles (/{lang}/admin/roles, administrators): who holds which role (GET /admin/roles),
// change or revoke it (PUT / DELETE /admin/roles/{userId}), and grant one to an account found
// first by its exact mail, phone, user name or user id. Revoking ends the person's console access
// at once.
import { useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { Dialog } from '../../components/dialog';
import { useTitle } from '../../components/use-title';
import { When } from '../../components/when';
import { errorText } from '../../lib/api';
import { Said, useSaid } from '../../components/said';
import { FindAccount } from './accounts';
import { type Found, grantRole, type Holder, listRoles, revokeRole, type Role, ROLES } from './api';
import { LoadStatus, Section, useConsole, useLang, useLoad, useMay } from './context';
import { named, roleHints, roleNames } from './labels';
import { TableFrame, T } from './widgets';
import { adminPath } from '../../config/console-paths';

const m = defineMessages({
  heading: { id: 'admin.roles.heading', defaultMessage: 'Console roles' },
  adminOnly: { id: 'admin.roles.adminOnly', defaultMessage: 'Only an administrator manages roles.' },
  holders: { id: 'admin.roles.holders', defaultMessage: 'Who has a role' },
  caption: { id: 'admin.roles.caption', defaultMessage: 'Role holders' },
  none: { id: 'admin.roles.none', defaultMessage: 'Nobody has a role.' },
  who: { id: 'admin.roles.col.who', defaultMessage: 'Account' },
  role: { id: 'admin.roles.col.role', defaultMessage: 'Role' },
  granted: { id: 'admin.roles.col.granted', defaultMessage: 'Granted' },
  grantedBy: { id: 'admin.roles.grantedBy', defaultMessage: 'by {who}' },
  actions: { id: 'admin.roles.col.actions', defaultMessage: 'Change' },
  roleOf: { id: 'admin.roles.roleOf', defaultMessage: 'Role of {who}' },
  revoke: { id: 'admin.roles.revoke', defaultMessage: 'Revoke' },
  revokeOf: { id: 'admin.roles.revokeOf', defaultMessage: 'Revoke the role of {who}' },
  revokeTitle: { id: 'admin.roles.revokeTitle', defaultMessage: 'Revoke the role of {who}?' },
  revokeText: { id: 'admin.roles.revokeText', defaultMessage: 'Their console access ends at once.' },
  revoked: { id: 'admin.roles.revoked', defaultMessage: 'The role of {who} is revoked.' },
  changed: { id: 'admin.roles.changed', defaultMessage: '{who} is now {role}.' },
  cancel: { id: 'admin.cancel', defaultMessage: 'Cancel' },
  grantHeading: { id: 'admin.roles.grant', defaultMessage: 'Grant a role' },
  findFirst: { id: 'admin.roles.findFirst', defaultMessage: 'Find the account first' },
  grantTo: { id: 'admin.roles.grantTo', defaultMessage: 'Role for {who}' },
  grantButton: { id: 'admin.roles.grantButton', defaultMessage: 'Grant' },
});

export function Roles() {
  useTitle(m.heading);
  const admin = useMay('admin');
  return (
    <div className="console-screen">
      <h1>
        <FormattedMessage {...m.heading} />
      </h1>
      {admin ? (
        <RolesView />
      ) : (
        <p className="card" role="alert">
          <FormattedMessage {...m.adminOnly} />
        </p>
      )}
    </div>
  );
}

function RolesView() {
  const intl = useIntl();
  const lang = useLang();
  const { guard, me } = useConsole();
  const { loaded, reload } = useLoad(listRoles, []);
  const [revoking, setRevoking] = useState<Holder | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [found, setFound] = useState<Found | null>(null);
  const [grant, setGrant] = useState<Role>('viewer');
  // A change is said above the holders' table, where it shows, with the focus (issue 34 item 5).
  const done = useSaid();
  const id = useId();
  const whoOf = (h: { mail: string | null; userId: string }) => h.mail ?? h.userId;
  const change = async (userId: string, who: string, role: Role) => {
    setBusy(true);
    setFailed(null);
    const r = await guard(() => grantRole(userId, role));
    setBusy(false);
    if (!r) return false;
    if (!r.success) {
      setFailed(errorText(r.error));
      return false;
    }
    done.say(intl.formatMessage(m.changed, { who, role: intl.formatMessage(roleNames[role]) }));
    reload();
    return true;
  };
  const holders = loaded.state === 'ready' ? loaded.data.holders : null;
  return (
    <>
      <Section title={<FormattedMessage {...m.holders} />}>
        <p className="field-error" role="alert" data-testid="roles-error">
          {failed}
        </p>
        <Said said={done.said} testId="roles-done" focus />
        <LoadStatus loaded={loaded} onRetry={reload} />
        {holders &&
          (holders.length === 0 ? (
            <p className="muted">
              <FormattedMessage {...m.none} />
            </p>
          ) : (
            <TableFrame label={intl.formatMessage(m.caption)}>
              <table data-testid="roles">
                <caption>{intl.formatMessage(m.caption)}</caption>
                <thead>
                  <tr>
                    <th scope="col">
                      <FormattedMessage {...m.who} />
                    </th>
                    <th scope="col">
                      <FormattedMessage {...m.role} />
                    </th>
                    <th scope="col">
                      <FormattedMessage {...m.granted} />
                    </th>
                    <th scope="col">
                      <FormattedMessage {...m.actions} />
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {holders.map((h) => (
                    <tr key={h.userId}>
                      <th scope="row">
                        <Link to={adminPath(lang, 'account', h.userId)}>{whoOf(h)}</Link>
                      </th>
                      <td>
                        <T msg={named(roleNames, h.role)} />
                      </td>
                      <td>
                        <When at={h.grantedAt} /> <span className="muted cell-note"><FormattedMessage {...m.grantedBy} values={{ who: h.grantedBy }} /></span>
                      </td>
                      <td>
                        <div className="row-actions">
                          <select
                            aria-label={intl.formatMessage(m.roleOf, { who: whoOf(h) })}
                            value={h.role}
                            disabled={busy || h.userId === me.userId}
                            onChange={(e) => void change(h.userId, whoOf(h), e.target.value as Role)}
                          >
                            {ROLES.map((r) => (
                              <option key={r} value={r}>
                                {intl.formatMessage(roleNames[r])}
                              </option>
                            ))}
                          </select>
                          <button
                            type="button"
                            className="danger"
                            disabled={busy || h.userId === me.userId}
                            aria-label={intl.formatMessage(m.revokeOf, { who: whoOf(h) })}
                            onClick={() => setRevoking(h)}
                          >
                            <FormattedMessage {...m.revoke} />
                          </button>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableFrame>
          ))}
      </Section>
      <FindAccount heading={m.findFirst} onFound={setFound} />
      {found && (
        <Section title={<FormattedMessage {...m.grantHeading} />}>
          <form
            className="console-form"
            data-testid="grant-form"
            onSubmit={(e) => {
              e.preventDefault();
              void change(found.userId, found.mail ?? found.userName, grant).then((ok) => ok && setFound(null));
            }}
          >
            <fieldset className="choice">
              <legend>
                <FormattedMessage {...m.grantTo} values={{ who: found.mail ?? found.userName }} />
              </legend>
              {ROLES.map((r) => (
                <label key={r} className="radio">
                  <input type="radio" name={`${id}role`} value={r} checked={grant === r} onChange={() => setGrant(r)} />
                  <span>
                    <FormattedMessage {...roleNames[r]} /> <span className="muted">(<FormattedMessage {...roleHints[r]} />)</span>
                  </span>
                </label>
              ))}
            </fieldset>
            <button type="submit" className="primary" disabled={busy}>
              <FormattedMessage {...m.grantButton} />
            </button>
          </form>
        </Section>
      )}
      {revoking && (
        <Dialog
          testId="revoke-dialog"
          title={<FormattedMessage {...m.revokeTitle} values={{ who: whoOf(revoking) }} />}
          description={<FormattedMessage {...m.revokeText} />}
          onCancel={() => setRevoking(null)}
        >
          <div className="actions">
            <button type="button" onClick={() => setRevoking(null)}>
              <FormattedMessage {...m.cancel} />
            </button>
            <button
              type="button"
              className="primary danger"
              data-testid="revoke-confirm"
              disabled={busy}
              onClick={() => {
                const h = revoking;
                void (async () => {
                  setBusy(true);
                  const r = await guard(() => revokeRole(h.userId));
                  setBusy(false);
                  setRevoking(null);
                  if (!r) return;
                  if (!r.success) return setFailed(errorText(r.error));
                  done.say(intl.formatMessage(m.revoked, { who: whoOf(h) }));
                  reload();
                })();
              }}
            >
              <FormattedMessage {...m.revoke} />
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}
