import { describe, expect, it } from 'vitest';
import { assignable, invitable, manages, rank, removable } from './roles';

describe('organization roles (docs/organizations-design.md §2)', () => {
  it('ranks owner over admin over member, an unknown role as a member', () => {
    expect([rank('owner'), rank('admin'), rank('member'), rank('auditor')]).toEqual([3, 2, 1, 1]);
    expect([manages('owner'), manages('admin'), manages('member'), manages('auditor')]).toEqual([true, true, false, false]);
  });

  it('lets admins invite admins and members, owners anyone, members nobody', () => {
    expect(invitable('owner')).toEqual(['owner', 'admin', 'member']);
    expect(invitable('admin')).toEqual(['admin', 'member']);
    expect(invitable('member')).toEqual([]);
  });

  it('lets nobody change their own role, admins never touch owners', () => {
    expect(assignable('owner', 'owner', true)).toEqual([]);
    expect(assignable('owner', 'owner', false)).toEqual(['owner', 'admin', 'member']);
    expect(assignable('admin', 'owner', false)).toEqual([]);
    expect(assignable('admin', 'admin', false)).toEqual(['admin', 'member']);
    expect(assignable('admin', 'member', false)).toEqual(['admin', 'member']);
    expect(assignable('member', 'member', false)).toEqual([]);
  });

  it('lets admins remove admins and members, owners anyone but themselves', () => {
    expect(removable('owner', 'owner', false)).toBe(true);
    expect(removable('owner', 'owner', true)).toBe(false);
    expect(removable('admin', 'owner', false)).toBe(false);
    expect(removable('admin', 'admin', false)).toBe(true);
    expect(removable('member', 'member', false)).toBe(false);
  });
});
