// The words the console shows for the server's names: roles, statuses, activity, what deleting an
// app ends, scopes, sign-in outcomes and methods, audit actions (the audit log's, typed by the
// document's enum: an action without a name in both languages does not compile).
import { defineMessages, type MessageDescriptor } from 'react-intl';
import type { AccountPage, Action, AuditAction, EventKind, Role, Status } from './api';

/** An activity kind: the document's union (the account page's activity, GET /auth/activity's). */
type Kind = AccountPage['activity'][number]['kind'];

export const roleNames: Record<Role, MessageDescriptor> = defineMessages({
  viewer: { id: 'admin.role.viewer', defaultMessage: 'Viewer' },
  operator: { id: 'admin.role.operator', defaultMessage: 'Operator' },
  admin: { id: 'admin.role.admin', defaultMessage: 'Administrator' },
});

export const roleHints: Record<Role, MessageDescriptor> = defineMessages({
  viewer: { id: 'admin.roleHint.viewer', defaultMessage: 'reads accounts, apps, the audit log and the numbers' },
  operator: { id: 'admin.roleHint.operator', defaultMessage: 'also acts on accounts' },
  admin: { id: 'admin.roleHint.admin', defaultMessage: 'also manages apps and grants roles' },
});

export const statusNames: Record<Status, MessageDescriptor> = defineMessages({
  active: { id: 'admin.status.active', defaultMessage: 'Active' },
  locked: { id: 'admin.status.locked', defaultMessage: 'Locked' },
  suspended: { id: 'admin.status.suspended', defaultMessage: 'Suspended' },
  deactivated: { id: 'admin.status.deactivated', defaultMessage: 'Deactivated' },
});

export const actionNames: Record<Action, MessageDescriptor> = defineMessages({
  unlock: { id: 'admin.action.unlock', defaultMessage: 'Unlock' },
  suspend: { id: 'admin.action.suspend', defaultMessage: 'Suspend' },
  reactivate: { id: 'admin.action.reactivate', defaultMessage: 'Reactivate' },
  'end-sessions': { id: 'admin.action.endSessions', defaultMessage: 'Sign out everywhere' },
  'reset-two-factor': { id: 'admin.action.resetTwoFactor', defaultMessage: 'Reset two-factor' },
  'reset-passkeys': { id: 'admin.action.resetPasskeys', defaultMessage: 'Remove passkeys' },
  'send-reset-code': { id: 'admin.action.sendResetCode', defaultMessage: 'Send a password-reset code' },
});

export const actionHelp: Record<Action, MessageDescriptor> = defineMessages({
  unlock: { id: 'admin.actionHelp.unlock', defaultMessage: 'Clears the lock and the failed sign-in counters, so the customer can sign in again.' },
  suspend: {
    id: 'admin.actionHelp.suspend',
    defaultMessage: 'The account can no longer sign in by any method; it is signed out everywhere, and its tokens and tickets end. Reactivate it to undo.',
  },
  reactivate: { id: 'admin.actionHelp.reactivate', defaultMessage: 'The suspended account can sign in again.' },
  'end-sessions': { id: 'admin.actionHelp.endSessions', defaultMessage: 'Signs the account out on every device: each session and access token ends.' },
  'reset-two-factor': {
    id: 'admin.actionHelp.resetTwoFactor',
    defaultMessage: 'Turns off the authenticator app and its backup codes. Passkeys stay. The customer can sign in with the password alone and set it up again.',
  },
  'reset-passkeys': { id: 'admin.actionHelp.resetPasskeys', defaultMessage: 'Removes every passkey of the account.' },
  'send-reset-code': {
    id: 'admin.actionHelp.sendResetCode',
    defaultMessage: 'Sends a password-reset code to the account’s mail, else its phone. You never see the code or the password.',
  },
});

export const actionDone: Record<Action, MessageDescriptor> = defineMessages({
  unlock: { id: 'admin.actionDone.unlock', defaultMessage: 'The account is unlocked.' },
  suspend: { id: 'admin.actionDone.suspend', defaultMessage: 'The account is suspended.' },
  reactivate: { id: 'admin.actionDone.reactivate', defaultMessage: 'The account is active again.' },
  'end-sessions': { id: 'admin.actionDone.endSessions', defaultMessage: 'The account is signed out on every device.' },
  'reset-two-factor': { id: 'admin.actionDone.resetTwoFactor', defaultMessage: 'Two-factor authentication is off for the account.' },
  'reset-passkeys': { id: 'admin.actionDone.resetPasskeys', defaultMessage: 'The account’s passkeys are removed.' },
  'send-reset-code': { id: 'admin.actionDone.sendResetCode', defaultMessage: 'A password-reset code is on its way to the customer.' },
});

/** The words of each activity kind: a kind the document adds fails the type check until it has its words. */
const activity: Record<Kind, MessageDescriptor> = defineMessages({
  signIn: { id: 'admin.event.signIn', defaultMessage: 'Signed in' },
  passwordChanged: { id: 'admin.event.passwordChanged', defaultMessage: 'Password changed' },
  passwordReset: { id: 'admin.event.passwordReset', defaultMessage: 'Password reset' },
  totpEnabled: { id: 'admin.event.totpEnabled', defaultMessage: 'Two-factor authentication turned on' },
  totpDisabled: { id: 'admin.event.totpDisabled', defaultMessage: 'Two-factor authentication turned off' },
  backupCodesRegenerated: { id: 'admin.event.backupCodesRegenerated', defaultMessage: 'New backup codes' },
  mailChanged: { id: 'admin.event.mailChanged', defaultMessage: 'Mail changed' },
  phoneChanged: { id: 'admin.event.phoneChanged', defaultMessage: 'Phone changed' },
  appRevoked: { id: 'admin.event.appRevoked', defaultMessage: 'App access revoked' },
  passkeyAdded: { id: 'admin.event.passkeyAdded', defaultMessage: 'Passkey added' },
  passkeyRemoved: { id: 'admin.event.passkeyRemoved', defaultMessage: 'Passkey removed' },
  passkeyCloneSuspected: { id: 'admin.event.passkeyCloneSuspected', defaultMessage: 'Passkey copy suspected' },
  unlockedBySupport: { id: 'admin.event.unlockedBySupport', defaultMessage: 'Unlocked by support' },
  sessionsEndedBySupport: { id: 'admin.event.sessionsEndedBySupport', defaultMessage: 'Signed out everywhere by support' },
  twoFactorResetBySupport: { id: 'admin.event.twoFactorResetBySupport', defaultMessage: 'Two-factor reset by support' },
  resetCodeSentBySupport: { id: 'admin.event.resetCodeSentBySupport', defaultMessage: 'Reset code sent by support' },
  suspendedBySupport: { id: 'admin.event.suspendedBySupport', defaultMessage: 'Suspended by support' },
  reactivatedBySupport: { id: 'admin.event.reactivatedBySupport', defaultMessage: 'Reactivated by support' },
  passkeysResetBySupport: { id: 'admin.event.passkeysResetBySupport', defaultMessage: 'Passkeys removed by support' },
  identityReplacedBySupport: { id: 'admin.event.identityReplacedBySupport', defaultMessage: 'Mail or phone replaced by support' },
  identityLinked: { id: 'admin.event.identityLinked', defaultMessage: 'Account linked' },
  identityUnlinked: { id: 'admin.event.identityUnlinked', defaultMessage: 'Linked account removed' },
  identityUnlinkedBySupport: { id: 'admin.event.identityUnlinkedBySupport', defaultMessage: 'Linked account removed by support' },
});

/** An activity kind's words; a kind this build does not know shows as it is. */
export function activityName(kind: string): MessageDescriptor | string {
  return Object.prototype.hasOwnProperty.call(activity, kind) ? activity[kind as Kind] : kind;
}

const ends = defineMessages({
  tickets: { id: 'admin.ends.tickets', defaultMessage: 'Tickets: no new ticket is issued for the app, and one not yet verified can no longer be.' },
  oidcSignIn: { id: 'admin.ends.oidcSignIn', defaultMessage: 'OpenID Connect sign-in: requests for the app are refused, and codes not yet exchanged can no longer be.' },
  embeddedSignIn: { id: 'admin.ends.embeddedSignIn', defaultMessage: 'The embedded sign-in: the app’s pages may no longer frame it.' },
  appList: { id: 'admin.ends.appList', defaultMessage: 'The app list: the app leaves the list customers see.' },
  consents: { id: 'admin.ends.consents', defaultMessage: 'Consents: the app leaves its customers’ list of allowed apps.' },
});

const keeps = defineMessages({
  oidcAccessTokens: {
    id: 'admin.keeps.oidcAccessTokens',
    defaultMessage: 'OpenID Connect access tokens already issued: they keep working until they expire (within an hour).',
  },
  recentApps: { id: 'admin.keeps.recentApps', defaultMessage: 'Customers’ recently used apps keep its name and link until newer apps replace it.' },
});

/** What deleting an app ends, in words; a name this build does not know shows as it is. */
export function endsName(what: string): MessageDescriptor | string {
  return Object.prototype.hasOwnProperty.call(ends, what) ? ends[what as keyof typeof ends] : what;
}

/** What deleting an app does not end, in words. */
export function keepsName(what: string): MessageDescriptor | string {
  return Object.prototype.hasOwnProperty.call(keeps, what) ? keeps[what as keyof typeof keeps] : what;
}

export const scopeNames = defineMessages({
  avatar: { id: 'admin.scope.avatar', defaultMessage: 'Avatar' },
  nickname: { id: 'admin.scope.nickname', defaultMessage: 'Display name' },
  company: { id: 'admin.scope.company', defaultMessage: 'Company' },
  phone: { id: 'admin.scope.phone', defaultMessage: 'Phone' },
  email: { id: 'admin.scope.email', defaultMessage: 'Mail' },
});

export const outcomeNames = defineMessages({
  success: { id: 'admin.outcome.success', defaultMessage: 'Succeeded' },
  wrongSecret: { id: 'admin.outcome.wrongSecret', defaultMessage: 'Wrong password or code' },
  locked: { id: 'admin.outcome.locked', defaultMessage: 'Locked' },
  secondStepFailed: { id: 'admin.outcome.secondStepFailed', defaultMessage: 'Second step failed' },
  other: { id: 'admin.outcome.other', defaultMessage: 'Other' },
});

/** The federation providers by their API name (`wechat`): linked identities, sign-in methods. */
export const providerNames = defineMessages({
  wechat: { id: 'admin.provider.wechat', defaultMessage: 'WeChat' },
  wecom: { id: 'admin.provider.wecom', defaultMessage: 'WeCom' },
  dingtalk: { id: 'admin.provider.dingtalk', defaultMessage: 'DingTalk' },
  feishu: { id: 'admin.provider.feishu', defaultMessage: 'Feishu' },
});

/** Sign-in methods as the numbers name them: the fixed ones, then one per provider. */
export const methodNames: Record<string, MessageDescriptor> = {
  ...defineMessages({
    password: { id: 'admin.method.password', defaultMessage: 'Password' },
    code: { id: 'admin.method.code', defaultMessage: 'One-time code' },
    passkey: { id: 'admin.method.passkey', defaultMessage: 'Passkey' },
    staff: { id: 'admin.method.staff', defaultMessage: 'Staff sign-in' },
    totp: { id: 'admin.method.totp', defaultMessage: 'Authenticator (second step)' },
    organization: { id: 'admin.method.organization', defaultMessage: 'Company sign-in (its own connections)' },
  }),
  ...providerNames,
};

/** A name from one of the maps above, or the server's word when this build does not know it. */
export function named(map: Record<string, MessageDescriptor>, key: string): MessageDescriptor | string {
  return Object.prototype.hasOwnProperty.call(map, key) ? (map[key] as MessageDescriptor) : key;
}

/** The webhook event kinds, in the order of docs/partners.md. */
export const eventNames: Record<EventKind, MessageDescriptor> = defineMessages({
  'user.updated': { id: 'admin.webhooks.kind.userUpdated', defaultMessage: 'Profile changed' },
  'user.mail_changed': { id: 'admin.webhooks.kind.mailChanged', defaultMessage: 'Mail changed' },
  'user.phone_changed': { id: 'admin.webhooks.kind.phoneChanged', defaultMessage: 'Phone changed' },
  'user.deactivated': { id: 'admin.webhooks.kind.deactivated', defaultMessage: 'Account deactivated' },
  'user.suspended': { id: 'admin.webhooks.kind.suspended', defaultMessage: 'Account suspended' },
  'user.reactivated': { id: 'admin.webhooks.kind.reactivated', defaultMessage: 'Account reactivated' },
  'session.ended': { id: 'admin.webhooks.kind.sessionEnded', defaultMessage: 'Signed out' },
  'consent.revoked': { id: 'admin.webhooks.kind.consentRevoked', defaultMessage: 'App removed by the user' },
  'two_factor.changed': { id: 'admin.webhooks.kind.twoFactorChanged', defaultMessage: 'Two-factor changed' },
  'user.identity_changed': { id: 'admin.webhooks.kind.identityChanged', defaultMessage: 'Linked account changed' },
  'organization.member_added': { id: 'admin.webhooks.kind.orgMemberAdded', defaultMessage: 'Organization: member joined' },
  'organization.member_removed': { id: 'admin.webhooks.kind.orgMemberRemoved', defaultMessage: 'Organization: member left or removed' },
  'organization.invitation_accepted': { id: 'admin.webhooks.kind.orgInvitationAccepted', defaultMessage: 'Organization: invitation accepted' },
});

/** The audit log's actions, in the document's order. */
export const auditActionNames: Record<AuditAction, MessageDescriptor> = defineMessages({
  'account.reveal': { id: 'admin.audit.act.accountReveal', defaultMessage: 'Showed mail and phone unmasked' },
  'account.unlock': { id: 'admin.audit.act.accountUnlock', defaultMessage: 'Unlocked the account' },
  'account.endSessions': { id: 'admin.audit.act.accountEndSessions', defaultMessage: 'Signed the account out everywhere' },
  'account.resetTwoFactor': { id: 'admin.audit.act.accountResetTwoFactor', defaultMessage: 'Reset two-factor authentication' },
  'account.sendResetCode': { id: 'admin.audit.act.accountSendResetCode', defaultMessage: 'Sent a password-reset code' },
  'account.suspend': { id: 'admin.audit.act.accountSuspend', defaultMessage: 'Suspended the account' },
  'account.reactivate': { id: 'admin.audit.act.accountReactivate', defaultMessage: 'Reactivated the account' },
  'account.resetPasskeys': { id: 'admin.audit.act.accountResetPasskeys', defaultMessage: 'Removed the passkeys' },
  'account.replaceIdentity': { id: 'admin.audit.act.accountReplaceIdentity', defaultMessage: 'Replaced the mail or phone' },
  'account.unlinkIdentity': { id: 'admin.audit.act.accountUnlinkIdentity', defaultMessage: 'Unlinked an account of another service' },
  'account.notes': { id: 'admin.audit.act.accountNotes', defaultMessage: 'Changed the support notes' },
  'role.grant': { id: 'admin.audit.act.roleGrant', defaultMessage: 'Gave or changed a console role' },
  'role.revoke': { id: 'admin.audit.act.roleRevoke', defaultMessage: 'Removed a console role' },
  'app.create': { id: 'admin.audit.act.appCreate', defaultMessage: 'Registered the app' },
  'app.update': { id: 'admin.audit.act.appUpdate', defaultMessage: 'Changed the app' },
  'app.rotateSecret': { id: 'admin.audit.act.appRotateSecret', defaultMessage: 'Made a new app secret' },
  'app.retirePreviousSecret': { id: 'admin.audit.act.appRetirePreviousSecret', defaultMessage: 'Ended the previous app secret' },
  'app.delete': { id: 'admin.audit.act.appDelete', defaultMessage: 'Deleted the app' },
  'webhook.create': { id: 'admin.audit.act.webhookCreate', defaultMessage: 'Added a webhook endpoint' },
  'webhook.update': { id: 'admin.audit.act.webhookUpdate', defaultMessage: 'Changed a webhook endpoint' },
  'webhook.rotateSecret': { id: 'admin.audit.act.webhookRotateSecret', defaultMessage: 'Made a new webhook signing secret' },
  'webhook.delete': { id: 'admin.audit.act.webhookDelete', defaultMessage: 'Deleted a webhook endpoint' },
  'webhook.replay': { id: 'admin.audit.act.webhookReplay', defaultMessage: 'Sent webhook events again' },
  'webhook.refan': { id: 'admin.audit.act.webhookRefan', defaultMessage: 'Queued the account’s partner events again' },
  'org.create': { id: 'admin.audit.act.orgCreate', defaultMessage: 'Created an organization' },
  'org.approve': { id: 'admin.audit.act.orgApprove', defaultMessage: 'Approved an organization request' },
  'org.refuse': { id: 'admin.audit.act.orgRefuse', defaultMessage: 'Refused an organization request' },
  'org.update': { id: 'admin.audit.act.orgUpdate', defaultMessage: 'Changed an organization' },
  'org.invite': { id: 'admin.audit.act.orgInvite', defaultMessage: 'Invited someone into an organization' },
  'org.memberRole': { id: 'admin.audit.act.orgMemberRole', defaultMessage: "Changed a member's role in an organization" },
  'org.memberRemove': { id: 'admin.audit.act.orgMemberRemove', defaultMessage: 'Removed a member from an organization' },
  'org.revokeInvitation': { id: 'admin.audit.act.orgRevokeInvitation', defaultMessage: 'Revoked an invitation into an organization' },
  'org.domain': { id: 'admin.audit.act.orgDomain', defaultMessage: "Changed an organization's domains" },
  'org.connection': { id: 'admin.audit.act.orgConnection', defaultMessage: "Changed an organization's sign-in connections" },
});
