// The words "My company" shows for the server's values: roles, invitation states, audit actions.
// A value this build does not know is shown as the server wrote it.
import { defineMessages, type IntlShape, type MessageDescriptor } from 'react-intl';
import type { Organization } from '../../lib/api-types.gen';

const roles = defineMessages({
  owner: { id: 'org.role.owner', defaultMessage: 'Owner' },
  admin: { id: 'org.role.admin', defaultMessage: 'Admin' },
  member: { id: 'org.role.member', defaultMessage: 'Member' },
});

const states = defineMessages({
  pending: { id: 'org.invitation.pending', defaultMessage: 'Waiting' },
  used: { id: 'org.invitation.used', defaultMessage: 'Accepted' },
  revoked: { id: 'org.invitation.revoked', defaultMessage: 'Withdrawn' },
});

const actions = defineMessages({
  'org.create': { id: 'org.audit.orgCreate', defaultMessage: 'Organization created' },
  'org.request': { id: 'org.audit.orgRequest', defaultMessage: 'Organization asked for' },
  'org.approve': { id: 'org.audit.orgApprove', defaultMessage: 'Request approved' },
  'org.update': { id: 'org.audit.orgUpdate', defaultMessage: 'Names or settings changed' },
  'org.suspend': { id: 'org.audit.orgSuspend', defaultMessage: 'Organization suspended' },
  'org.reactivate': { id: 'org.audit.orgReactivate', defaultMessage: 'Organization reactivated' },
  'member.add': { id: 'org.audit.memberAdd', defaultMessage: 'Member added' },
  'member.remove': { id: 'org.audit.memberRemove', defaultMessage: 'Member removed' },
  'member.role': { id: 'org.audit.memberRole', defaultMessage: 'Role changed' },
  'invitation.create': { id: 'org.audit.invitationCreate', defaultMessage: 'Invitation sent' },
  'invitation.revoke': { id: 'org.audit.invitationRevoke', defaultMessage: 'Invitation withdrawn' },
  'invitation.accept': { id: 'org.audit.invitationAccept', defaultMessage: 'Invitation accepted' },
  'member.join': { id: 'org.audit.memberJoin', defaultMessage: 'Joined (verified domain or company sign-in)' },
  'org.refuse': { id: 'org.audit.orgRefuse', defaultMessage: 'Request refused' },
  'domain.add': { id: 'org.audit.domainAdd', defaultMessage: 'Domain added' },
  'domain.verify': { id: 'org.audit.domainVerify', defaultMessage: 'Domain verified' },
  'domain.enrolment': { id: 'org.audit.domainEnrolment', defaultMessage: 'Domain enrolment changed' },
  'domain.remove': { id: 'org.audit.domainRemove', defaultMessage: 'Domain removed' },
  'connection.create': { id: 'org.audit.connectionCreate', defaultMessage: 'Sign-in connection added' },
  'connection.status': { id: 'org.audit.connectionStatus', defaultMessage: 'Sign-in connection turned on or off' },
  'connection.delete': { id: 'org.audit.connectionDelete', defaultMessage: 'Sign-in connection deleted' },
  'connection.update': { id: 'org.audit.connectionUpdate', defaultMessage: 'Sign-in connection changed' },
  'domain.signIn': { id: 'org.audit.domainSignIn', defaultMessage: 'Domain sign-in connection changed' },
});

const say = (intl: IntlShape, table: Record<string, MessageDescriptor>, value: string) =>
  Object.hasOwn(table, value) ? intl.formatMessage(table[value]!) : value;

export const roleName = (intl: IntlShape, role: string) => say(intl, roles, role);
export const invitationState = (intl: IntlShape, status: string) => say(intl, states, status);
export const actionName = (intl: IntlShape, action: string) => say(intl, actions, action);

/** The organization's name in the page's language (the other one when that is empty). */
export const orgName = (o: Pick<Organization, 'nameZh' | 'nameEn'>, locale: string) =>
  (locale === 'zh-CN' ? o.nameZh || o.nameEn : o.nameEn || o.nameZh) ?? '';
