// What a member of an organization may do to whom, as the server decides it
// (docs/organizations-design.md §2), so that "My company" offers only what would be allowed: the
// server still checks every change (ORG_ROLE_FORBIDDEN, ORG_LAST_OWNER).
export const ROLES = ['owner', 'admin', 'member'] as const;
export type KnownRole = (typeof ROLES)[number];

/** A role's rank; a role this build does not know ranks as `member` (as the server reads it). */
export function rank(role: string): number {
  return role === 'owner' ? 3 : role === 'admin' ? 2 : 1;
}

/** Admins and owners manage the organization (members, invitations, its audit log). */
export const manages = (role: string) => rank(role) >= 2;

/** The roles `caller` may invite as: admins invite admins and members, owners anyone. */
export function invitable(caller: string): KnownRole[] {
  return manages(caller) ? ROLES.filter((r) => rank(r) <= rank(caller)) : [];
}

/**
 * The roles `caller` may give the member `target` (its current role first), or [] when the caller
 * may not change it: never their own; at least the member's current rank and the new role's; only
 * owners touch owners.
 */
export function assignable(caller: string, target: string, self: boolean): KnownRole[] {
  if (self || !manages(caller) || rank(target) > rank(caller)) return [];
  return ROLES.filter((r) => rank(r) <= rank(caller));
}

/** Whether `caller` may remove the member `target` (oneself: leaving, offered apart). */
export const removable = (caller: string, target: string, self: boolean) => !self && manages(caller) && rank(target) <= rank(caller);
