//! The role catalogue of an organization's members: a table that can grow. A role is stored by
//! name; a name this build does not know reads as the lowest rank (`member`), so an item written
//! by a newer build never fails to read and never grants more than a member may do.

use serde::Serialize;

macro_rules! roles {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $rank:literal; )*) => {
        /// A member's role in an organization (docs/organizations-design.md §2).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        #[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
        #[serde(rename_all = "camelCase")]
        pub enum Role { $( $(#[$doc])* $variant, )* }

        impl Role {
            /// Every role, highest rank first.
            pub const ALL: &'static [Role] = &[ $( Role::$variant, )* ];

            /// Its name in the items and on the wire.
            pub const fn as_str(self) -> &'static str {
                match self { $( Role::$variant => $name, )* }
            }

            /// What it may do, compared: a higher rank may do all a lower one may.
            pub const fn rank(self) -> u8 {
                match self { $( Role::$variant => $rank, )* }
            }
        }
    };
}

roles! {
    /// Everything, owners included; at least one per organization, always.
    Owner = "owner", 3;
    /// Manages members and invitations below owner.
    Admin = "admin", 2;
    /// Belongs; sees the organization and their own role.
    Member = "member", 1;
}

impl Role {
    /// The role named `s`, if this build knows it (an API's input).
    pub fn parse(s: &str) -> Option<Role> {
        Self::ALL.iter().copied().find(|r| r.as_str() == s)
    }

    /// The role named `s` as stored: an unknown name is the lowest rank.
    pub fn parse_lenient(s: &str) -> Role {
        Self::parse(s).unwrap_or(Role::Member)
    }

    /// Whether it manages the organization's members and invitations.
    pub fn manages(self) -> bool {
        self.rank() >= Role::Admin.rank()
    }

    /// Whether a caller with this role may move a member from `from` to `to` (or remove them:
    /// `to` = `from`): the caller ranks at least as high as both, and only owners touch owners.
    pub fn may_set(self, from: Role, to: Role) -> bool {
        if !self.manages() {
            return false;
        }
        let touches_owner = from == Role::Owner || to == Role::Owner;
        if touches_owner && self != Role::Owner {
            return false;
        }
        self.rank() >= from.rank() && self.rank() >= to.rank()
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_stored_role_reads_as_a_member() {
        assert_eq!(Role::parse_lenient("auditor"), Role::Member);
        assert_eq!(Role::parse("auditor"), None);
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()), Some(*r));
        }
    }

    #[test]
    fn only_owners_touch_owners_and_members_touch_nobody() {
        use Role::*;
        assert!(Owner.may_set(Owner, Member));
        assert!(Owner.may_set(Member, Owner));
        assert!(!Admin.may_set(Owner, Member));
        assert!(!Admin.may_set(Member, Owner));
        assert!(Admin.may_set(Admin, Member));
        assert!(Admin.may_set(Member, Admin));
        assert!(!Member.may_set(Member, Member));
    }
}
