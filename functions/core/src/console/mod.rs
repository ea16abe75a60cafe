//! The operator console (docs/console-design.md): the roles, the gate every console route
//! passes first, the role index ([`roles`]), finding an account and its page ([`accounts`]), the
//! operator's actions on an account ([`actions`]), the partner apps ([`apps`]) and their webhook
//! endpoints ([`webhooks`]), the audit log ([`audit`]) and its export ([`export`]).

pub mod accounts;
pub mod actions;
pub mod apps;
pub mod audit;
pub mod audit_view;
pub mod export;
pub mod identity;
pub mod notes;
pub mod roles;
pub mod search;
pub mod suspend;
pub mod unlink;
pub mod webhooks;

use crate::error::Result;
use crate::sessions::{self, Session};
use crate::user::User;
use crate::{Ciam, Reason};
use ciam_store::Key;

/// Console use ends after this long without a console request (or a fresh proof).
pub const IDLE_SECS: i64 = 15 * 60;

/// The `amr` values that are a second factor: TOTP or a backup code (`otp`), a passkey
/// (`hwk`, `swk`), or a provider's `mfa`.
pub const SECOND_FACTORS: [&str; 4] = ["otp", "hwk", "swk", "mfa"];

/// A console role; each includes the ones below it (`Viewer < Operator < Admin`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// The support desk: reads accounts (masked), apps, the audit log.
    Viewer,
    /// Also acts on accounts and reveals a masked mail or phone (audited).
    Operator,
    /// Also manages partner apps and grants and revokes roles.
    Admin,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Viewer, Role::Operator, Role::Admin];

    /// A role field's schema gains the roles' names as its `enum` (docs/openapi.json).
    #[cfg(feature = "openapi")]
    pub fn names_schema(schema: &mut schemars::Schema) {
        let names: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
        schema.insert("enum".into(), serde_json::json!(names));
    }

    /// The stored and wire name (`viewer`, `operator`, `admin`; `admin` is `user::ADMIN`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Operator => "operator",
            Role::Admin => crate::user::ADMIN,
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The highest console role `user` holds, if any.
    pub fn of(user: &User) -> Option<Role> {
        user.roles.iter().filter_map(|r| Role::parse(r)).max()
    }
}

/// Who acts in the console: what audit entries record as the actor.
#[derive(Clone, Debug)]
pub struct Operator {
    pub user: User,
    pub role: Role,
    /// The session the console request came with (empty for the command line).
    pub session: Key,
}

impl Operator {
    /// The command line's local admin (`ciam admin ...`, no session): the break-glass path.
    pub fn is_local(&self) -> bool {
        self.session.pk.is_empty()
    }

    /// Whether this operator may act on `target`'s account: not on a console role holder of
    /// the same or a higher role (themselves included), so an operator cannot lock the admins
    /// out and an admin cannot take over another admin's account. Such accounts are helped
    /// by a higher role, or by the command line. Else 403 PERMISSION_DENIED.
    pub fn may_act_on(&self, target: &User) -> Result<()> {
        match Role::of(target) {
            Some(r) if r >= self.role && !self.is_local() => Err(crate::Error {
                cause: Some("the target holds a console role as high as the operator's".into()),
                ..crate::Error::new(Reason::PERMISSION_DENIED)
            }),
            _ => Ok(()),
        }
    }
}

/// The one check every console handler makes first (design §2):
///
/// 1. the account holds a role at least `need`, else 403 PERMISSION_DENIED (a customer too);
/// 2. the session's sign-in included a second factor ([`SECOND_FACTORS`] in its `amr`), else
///    403 CONSOLE_MFA_REQUIRED;
/// 3. console idle: more than [`IDLE_SECS`] since the session's last console request or fresh
///    proof (`consoleAt`, `authAt`), REAUTH_REQUIRED;
/// 4. `change`: a fresh proof at most `totp::FRESH_SECS` old, else REAUTH_REQUIRED.
///
/// The role is the user item's, read with the session on this very request: a revoked role is
/// refused on the next request. Round trips: 0, plus 1 at most once a minute (`consoleAt`).
pub async fn gate(ciam: &Ciam, s: &Session, need: Role, change: bool) -> Result<Operator> {
    let role = Role::of(&s.user)
        .filter(|r| *r >= need)
        .ok_or(Reason::PERMISSION_DENIED)?;
    if !s.amr.iter().any(|m| SECOND_FACTORS.contains(&m.as_str())) {
        return Err(Reason::CONSOLE_MFA_REQUIRED.into());
    }
    let now = ciam.now();
    let last = s.console_at.unwrap_or(0).max(s.auth_at);
    if now - last > IDLE_SECS {
        return Err(crate::Error {
            cause: Some("console idle".to_owned()),
            ..crate::Error::new(Reason::REAUTH_REQUIRED)
        });
    }
    if change {
        crate::totp::require_fresh(ciam, s)?;
    }
    let stale = match s.console_at {
        Some(at) => now - at >= sessions::REFRESH_AFTER,
        None => true,
    };
    if stale {
        sessions::touch_console(ciam, s).await?;
    }
    Ok(Operator {
        user: s.user.clone(),
        role,
        session: s.key.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_are_ordered_and_named() {
        assert!(Role::Viewer < Role::Operator && Role::Operator < Role::Admin);
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()), Some(r));
        }
        assert_eq!(Role::parse("root"), None);
        let user = User {
            roles: vec!["viewer".into(), "admin".into()],
            ..Default::default()
        };
        assert_eq!(Role::of(&user), Some(Role::Admin));
        assert_eq!(Role::of(&User::default()), None);
    }
}
