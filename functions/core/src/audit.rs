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
        }
    }
}

/// The put to add to the transaction of the change.
pub fn record(ciam: &Ciam, user_id: &str, event: Event, client: &ClientInfo) -> TxOp {
    TxOp::Put {
        item: entry(ciam, user_id, event, client),
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
        item: entry(ciam, user_id, event, client).with("name", name),
        cond: None,
    }
}

/// The event item itself (for an entry written on its own, outside a change's transaction).
pub fn entry(ciam: &Ciam, user_id: &str, event: Event, client: &ClientInfo) -> Item {
    let now = ciam.now();
    let sk = format!(
        "EVENT#{now:012}#{}",
        hex::encode(random::<4>(ciam.entropy.as_ref()))
    );
    Item::new(Key::new(user_pk(user_id), sk))
        .with("kind", event.kind())
        .with("at", now)
        .with_opt("device", client.device.clone())
        .with_opt("country", client.country.clone())
        .expires(now + KEEP_SECS)
}
