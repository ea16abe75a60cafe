//! The security activity trail: one item per event in the user's partition
//! (`USER#<id>` / `EVENT#<unix seconds, 12 digits>#<random>`), written inside the transaction of
//! the change it records (no extra round trip), kept 180 days.

use crate::client::ClientInfo;
use crate::user::user_pk;
use crate::{random, Ciam};
use ciam_store::{Item, Key, TxOp};

pub const KEEP_SECS: i64 = 180 * 86_400;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    SignIn,
    PasswordChanged,
    PasswordReset,
    TotpEnabled,
    TotpDisabled,
    BackupCodesRegenerated,
    MailChanged,
    PhoneChanged,
    /// The user revoked a partner app's access (its remembered consent).
    AppRevoked,
    /// A passkey was registered (the entry names it).
    PasskeyAdded,
    /// A passkey was removed (the entry names it).
    PasskeyRemoved,
    /// A passkey's signature counter went back: possibly a cloned authenticator; the
    /// assertion was refused (the entry names the passkey).
    PasskeyCloneSuspected,
    /// Support unlocked the account (the console).
    UnlockedBySupport,
    /// Support ended every session of the account.
    SessionsEndedBySupport,
    /// Support turned two-factor sign-in off.
    TwoFactorResetBySupport,
    /// Support sent a password-reset code to the account's mail or phone.
    ResetCodeSentBySupport,
    /// Support suspended the account: no sign-in until it is reactivated.
    SuspendedBySupport,
    /// Support reactivated the suspended account.
    ReactivatedBySupport,
    /// Support removed every passkey of the account.
    PasskeysResetBySupport,
    /// Support replaced the account's mail or phone (recovery).
    IdentityReplacedBySupport,
}

impl Event {
    pub fn kind(self) -> &'static str {
        match self {
            Event::SignIn => "signIn",
            Event::PasswordChanged => "passwordChanged",
            Event::PasswordReset => "passwordReset",
            Event::TotpEnabled => "totpEnabled",
            Event::TotpDisabled => "totpDisabled",
            Event::BackupCodesRegenerated => "backupCodesRegenerated",
            Event::MailChanged => "mailChanged",
            Event::PhoneChanged => "phoneChanged",
            Event::AppRevoked => "appRevoked",
            Event::PasskeyAdded => "passkeyAdded",
            Event::PasskeyRemoved => "passkeyRemoved",
            Event::PasskeyCloneSuspected => "passkeyCloneSuspected",
            Event::UnlockedBySupport => "unlockedBySupport",
            Event::SessionsEndedBySupport => "sessionsEndedBySupport",
            Event::TwoFactorResetBySupport => "twoFactorResetBySupport",
            Event::ResetCodeSentBySupport => "resetCodeSentBySupport",
            Event::SuspendedBySupport => "suspendedBySupport",
            Event::ReactivatedBySupport => "reactivatedBySupport",
            Event::PasskeysResetBySupport => "passkeysResetBySupport",
            Event::IdentityReplacedBySupport => "identityReplacedBySupport",
        }
    }
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
