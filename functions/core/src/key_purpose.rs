//! What each key is for (docs/operations.md §1 "Keys with smaller reach"): the labels that
//! `Keys::derive` and `Keys::keyed_hash` take, grouped into a few purposes. A route declares
//! the purposes its handler uses (its row in functions/api/src/routes/mod.rs); the router runs
//! the handler with `Keys` restricted to them, and in AWS its function is given only those
//! purposes' keys (`<Purpose>KeySecret`, filled from the root by the key distributor).
//!
//! Each key is still HMAC-SHA256(root, label), exactly as before purposes existed: grouping
//! changes who holds a key, never its value, so nothing stored has to change.
//!
//! Deriving a label outside the declared purposes is a programming error: it is logged, and
//! [`within_request`] marks the request, after which the request's store refuses every call and
//! the HTTP layer answers 503 (never a verdict made with a wrong key). In debug builds it also
//! panics, so a test that reaches it fails on the spot.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A group of key labels with one reach: who may hold one of them may hold them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyPurpose {
    /// Sessions (`session`: the keyed hash a bearer token is looked up by, which mints and
    /// authenticates sessions) and the second-step challenge (`mfa`) a sign-in leaves instead
    /// of a session when it needs a second factor.
    Session,
    /// Sealed two-factor secrets (`totp-secret`, AES-256-GCM) and backup codes (`backup-code`).
    Seal,
    /// The captcha's HMAC key (`captcha`).
    Captcha,
    /// Ticket lookups (`ticket`).
    Ticket,
    /// One-time codes by mail and SMS (`code`).
    Code,
    /// The staff sign-in's state and login code (`staff-state`, `staff-code`).
    Staff,
    /// Passkey ceremonies: the sealed challenge, the session binding and the used-marker
    /// (`passkey-challenge`, `passkey-session`, `passkey-used`).
    Passkey,
    /// Partner app secret hashes (`app-secret`).
    App,
    /// OpenID Connect codes and access tokens (`oidc-code`, `oidc-access-token`).
    Oidc,
    /// The ES256 keys of id_tokens derived where no signer is installed (`oidc-es256-v<n>...`:
    /// `ciam serve`, tests). In AWS KMS signs: this purpose has no secret.
    Es256,
    /// Sealed webhook endpoint secrets (`webhook-secret`, AES-256-GCM): the registry routes that
    /// make one and whatever signs deliveries.
    Webhook,
    /// Federated sign-in with every provider but staff: the state, the login code and the
    /// pending identity (`fed-state`, `fed-code`, `fed-pending`), the sealed WeCom corp
    /// token (`fed-token`), and organizations' sealed connection secrets (`org-connection`).
    Federation,
}

impl KeyPurpose {
    pub const ALL: [KeyPurpose; 12] = [
        KeyPurpose::Session,
        KeyPurpose::Seal,
        KeyPurpose::Captcha,
        KeyPurpose::Ticket,
        KeyPurpose::Code,
        KeyPurpose::Staff,
        KeyPurpose::Passkey,
        KeyPurpose::App,
        KeyPurpose::Oidc,
        KeyPurpose::Es256,
        KeyPurpose::Webhook,
        KeyPurpose::Federation,
    ];

    /// Its name in CamelCase: the secret `<Name>KeySecret` of template.yaml, the fact of
    /// infra/routes.json.
    pub const fn name(self) -> &'static str {
        match self {
            KeyPurpose::Session => "Session",
            KeyPurpose::Seal => "Seal",
            KeyPurpose::Captcha => "Captcha",
            KeyPurpose::Ticket => "Ticket",
            KeyPurpose::Code => "Code",
            KeyPurpose::Staff => "Staff",
            KeyPurpose::Passkey => "Passkey",
            KeyPurpose::App => "App",
            KeyPurpose::Oidc => "Oidc",
            KeyPurpose::Es256 => "Es256",
            KeyPurpose::Webhook => "Webhook",
            KeyPurpose::Federation => "Federation",
        }
    }

    /// The labels of a fixed set that make up the purpose, as the key distributor writes them
    /// (`Es256`'s are open-ended, one per key version, and never distributed: empty).
    pub const fn labels(self) -> &'static [&'static str] {
        match self {
            KeyPurpose::Session => &["session", "mfa"],
            KeyPurpose::Seal => &["totp-secret", "backup-code"],
            KeyPurpose::Captcha => &["captcha"],
            KeyPurpose::Ticket => &["ticket"],
            KeyPurpose::Code => &["code"],
            KeyPurpose::Staff => &["staff-state", "staff-code"],
            KeyPurpose::Passkey => &["passkey-challenge", "passkey-session", "passkey-used"],
            KeyPurpose::App => &["app-secret"],
            KeyPurpose::Oidc => &["oidc-code", "oidc-access-token"],
            KeyPurpose::Es256 => &[],
            KeyPurpose::Webhook => &["webhook-secret"],
            KeyPurpose::Federation => &[
                "fed-state",
                "fed-code",
                "fed-pending",
                "fed-token",
                "org-connection",
            ],
        }
    }

    /// Whether it has a secret in AWS (a fixed set of labels).
    pub const fn distributed(self) -> bool {
        !self.labels().is_empty()
    }

    /// The purpose a label belongs to; None for a label no purpose names (an error too).
    pub fn of_label(label: &str) -> Option<KeyPurpose> {
        if label.starts_with("oidc-es256-v") {
            return Some(KeyPurpose::Es256);
        }
        KeyPurpose::ALL
            .into_iter()
            .find(|p| p.labels().contains(&label))
    }

    const fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// A set of purposes, `const`-built for the route table: `Purposes::of(&[Session, Seal])`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Purposes(u16);

impl Purposes {
    pub const NONE: Purposes = Purposes(0);

    pub const fn of(list: &[KeyPurpose]) -> Purposes {
        let mut bits = 0;
        let mut i = 0;
        while i < list.len() {
            bits |= list[i].bit();
            i += 1;
        }
        Purposes(bits)
    }

    pub const fn with(self, p: KeyPurpose) -> Purposes {
        Purposes(self.0 | p.bit())
    }

    pub const fn union(self, other: Purposes) -> Purposes {
        Purposes(self.0 | other.0)
    }

    pub const fn contains(self, p: KeyPurpose) -> bool {
        self.0 & p.bit() != 0
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// In the order of [`KeyPurpose::ALL`].
    pub fn iter(self) -> impl Iterator<Item = KeyPurpose> {
        KeyPurpose::ALL
            .into_iter()
            .filter(move |p| self.contains(*p))
    }
}

/// The current request, as [`within_request`] scopes it.
struct Request {
    route: &'static str,
    undeclared: AtomicBool,
}

tokio::task_local! {
    static REQUEST: Arc<Request>;
}

/// Runs `f` as one request of route `route`: a key used outside the declared purposes within it
/// ([`mark_undeclared`]) makes [`refused`] true for the rest of it. The HTTP layer runs each
/// route's handler inside it and answers 503 when it returns [`Outcome::Undeclared`].
pub async fn within_request<F: std::future::Future>(
    route: &'static str,
    f: F,
) -> (F::Output, Outcome) {
    let req = Arc::new(Request {
        route,
        undeclared: AtomicBool::new(false),
    });
    let out = REQUEST.scope(req.clone(), f).await;
    let outcome = if req.undeclared.load(Ordering::SeqCst) {
        Outcome::Undeclared
    } else {
        Outcome::Clean
    };
    (out, outcome)
}

/// Whether a request used only the keys it declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Clean,
    Undeclared,
}

/// Marks the current request (if any) as having asked for an undeclared key; its route.
pub(crate) fn mark_undeclared() -> Option<&'static str> {
    REQUEST
        .try_with(|r| {
            r.undeclared.store(true, Ordering::SeqCst);
            r.route
        })
        .ok()
}

/// Whether the current request asked for an undeclared key: then its store calls are refused.
pub fn refused() -> bool {
    REQUEST
        .try_with(|r| r.undeclared.load(Ordering::SeqCst))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_label_has_one_purpose_and_names_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for p in KeyPurpose::ALL {
            assert!(seen.insert(p.name()));
            for l in p.labels() {
                assert_eq!(KeyPurpose::of_label(l), Some(p), "{l}");
            }
        }
        assert_eq!(
            KeyPurpose::of_label("oidc-es256-v3-1"),
            Some(KeyPurpose::Es256)
        );
        assert_eq!(KeyPurpose::of_label("nope"), None);
    }

    #[test]
    fn sets_hold_what_they_were_made_of() {
        let s = Purposes::of(&[KeyPurpose::Session, KeyPurpose::Seal]);
        assert!(s.contains(KeyPurpose::Session) && s.contains(KeyPurpose::Seal));
        assert!(!s.contains(KeyPurpose::Captcha));
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [KeyPurpose::Session, KeyPurpose::Seal]
        );
        assert!(Purposes::NONE.is_empty());
        assert_eq!(s.with(KeyPurpose::Captcha).iter().count(), 3);
    }

    #[tokio::test]
    async fn a_mark_lasts_for_its_request_only() {
        let (_, o) = within_request("r", async { assert!(!refused()) }).await;
        assert_eq!(o, Outcome::Clean);
        let (_, o) = within_request("r", async {
            assert_eq!(mark_undeclared(), Some("r"));
            assert!(refused());
        })
        .await;
        assert_eq!(o, Outcome::Undeclared);
        assert!(!refused());
        assert_eq!(mark_undeclared(), None); // outside a request: nothing to mark
    }
}
