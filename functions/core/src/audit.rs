//! The security activity trail: one item per event in the user's partition
//! (`USER#<id>` / `EVENT#<unix seconds, 12 digits>#<random>`), written inside the transaction of
//! the change it records (no extra round trip), kept 180 days.

use crate::client::ClientInfo;
use crate::user::user_pk;
use crate::{random, Ciam};
use ciam_store::{Item, Key, TxOp};

pub const KEEP_SECS: i64 = 180 * 86_400;

macro_rules! activity_kinds {
    ($( $(#[$doc:meta])* $variant:ident = $kind:literal, )*) => {
        /// The kinds of the security activity: the one list the entries' `kind`, the API's
        /// `listActivity` answer (its enum in docs/openapi.json) and so the web's labels (typed by
        /// the generated union) are made from.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Event { $( $(#[$doc])* $variant, )* }

        impl Event {
            /// Every kind, in the list's order.
            pub const ALL: &'static [Event] = &[ $( Event::$variant, )* ];

            /// Its name in the entries and on the wire, e.g. `passwordChanged`.
            pub fn kind(self) -> &'static str {
                match self { $( Event::$variant => $kind, )* }
            }
        }
    };
}

activity_kinds! {
    SignIn = "signIn",
    PasswordChanged = "passwordChanged",
    PasswordReset = "passwordReset",
    TotpEnabled = "totpEnabled",
    TotpDisabled = "totpDisabled",
    BackupCodesRegenerated = "backupCodesRegenerated",
    MailChanged = "mailChanged",
    PhoneChanged = "phoneChanged",
    /// The user revoked a partner app's access (its remembered consent).
    AppRevoked = "appRevoked",
    /// A passkey was registered (the entry names it).
    PasskeyAdded = "passkeyAdded",
    /// A passkey was removed (the entry names it).
    PasskeyRemoved = "passkeyRemoved",
    /// A passkey's signature counter went back: possibly a cloned authenticator; the
    /// assertion was refused (the entry names the passkey).
    PasskeyCloneSuspected = "passkeyCloneSuspected",
    /// Support unlocked the account (the console).
    UnlockedBySupport = "unlockedBySupport",
    /// Support ended every session of the account.
    SessionsEndedBySupport = "sessionsEndedBySupport",
    /// Support turned two-factor sign-in off.
    TwoFactorResetBySupport = "twoFactorResetBySupport",
    /// Support sent a password-reset code to the account's mail or phone.
    ResetCodeSentBySupport = "resetCodeSentBySupport",
    /// Support suspended the account: no sign-in until it is reactivated.
    SuspendedBySupport = "suspendedBySupport",
    /// Support reactivated the suspended account.
    ReactivatedBySupport = "reactivatedBySupport",
    /// Support removed every passkey of the account.
    PasskeysResetBySupport = "passkeysResetBySupport",
    /// Support replaced the account's mail or phone (recovery).
    IdentityReplacedBySupport = "identityReplacedBySupport",
    /// The user linked a provider's account (the entry names the provider).
    IdentityLinked = "identityLinked",
    /// The user removed a linked provider's account (the entry names the provider).
    IdentityUnlinked = "identityUnlinked",
    /// Support removed a linked provider's account (the entry names the provider).
    IdentityUnlinkedBySupport = "identityUnlinkedBySupport",
}

/// The JSON Schema of an entry's `kind` on the wire: the enum of [`Event::ALL`] (the API's answer
/// types point their `kind` here with `#[schemars(schema_with = ...)]`).
#[cfg(feature = "openapi")]
pub fn kind_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let kinds: Vec<&str> = Event::ALL.iter().map(|e| e.kind()).collect();
    schemars::json_schema!({ "type": "string", "enum": kinds })
}

/// An entry of the security activity, the item `USER#<id>` / `EVENT#<at>#<random>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: Key,
    /// [`Event::kind`]; a string, so an entry of a kind this build does not know still shows.
    pub kind: String,
    pub at: i64,
    pub device: Option<String>,
    pub country: Option<String>,
    /// What it is about (the passkey of a passkey event).
    pub name: Option<String>,
    pub expires_at: Option<i64>,
}

impl Entry {
    pub fn from_item(i: &Item) -> Entry {
        Entry {
            key: i.key.clone(),
            kind: i.s("kind").unwrap_or_default().to_owned(),
            at: i.n("at").unwrap_or(0),
            device: i.s("device").map(str::to_owned),
            country: i.s("country").map(str::to_owned),
            name: i.s("name").map(str::to_owned),
            expires_at: i.expires_at,
        }
    }

    pub fn to_item(&self) -> Item {
        let item = Item::new(self.key.clone())
            .with("kind", self.kind.as_str())
            .with("at", self.at)
            .with_opt("device", self.device.clone())
            .with_opt("country", self.country.clone())
            .with_opt("name", self.name.clone());
        match self.expires_at {
            Some(at) => item.expires(at),
            None => item,
        }
    }
}

/// The put to add to the transaction of the change.
pub fn record(ciam: &Ciam, user_id: &str, event: Event, client: &ClientInfo) -> TxOp {
    TxOp::Put {
        item: entry(ciam, user_id, event, client).to_item(),
        cond: None,
    }
}

/// The same entry naming what it is about (the passkey of a passkey event).
pub fn record_named(
    ciam: &Ciam,
    user_id: &str,
    event: Event,
    name: &str,
    client: &ClientInfo,
) -> TxOp {
    TxOp::Put {
        item: Entry {
            name: Some(name.to_owned()),
            ..entry(ciam, user_id, event, client)
        }
        .to_item(),
        cond: None,
    }
}

/// The entry itself (for one written on its own, outside a change's transaction).
pub fn entry(ciam: &Ciam, user_id: &str, event: Event, client: &ClientInfo) -> Entry {
    let now = ciam.now();
    let sk = format!(
        "EVENT#{now:012}#{}",
        hex::encode(random::<4>(ciam.entropy.as_ref()))
    );
    Entry {
        key: Key::new(user_pk(user_id), sk),
        kind: event.kind().to_owned(),
        at: now,
        device: client.device.clone(),
        country: client.country.clone(),
        name: None,
        expires_at: Some(now + KEEP_SECS),
    }
}
