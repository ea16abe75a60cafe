//! Registering a passkey: the options (the account's passkeys excluded) and the finish, which
//! stores the credential, its uniqueness item, the account's count and the activity entry in
//! one transaction.

use super::{config, descriptors, handle_of, internal, refused, seal, session_binding, Options};
use crate::audit::Event;
use crate::client::ClientInfo;
use crate::passkey::items::{self, id_hash, unique_key, used_key, PasskeyItem, LIMIT};
use crate::passkey::rp;
use crate::passkey::token::{Ceremony, Token};
use crate::sessions::{same_session, Session};
use crate::totp::require_fresh;
use crate::user::profile_key;
use crate::validate::Identity;
use crate::{Ciam, Error, LostRace, Reason, Result};
use ciam_store::{get_each, Cond, Item, TxOp, Update};
use serde::Serialize;
use serde_json::Value as Json;

/// What the registration answers: the new passkey's id and name.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "RegisteredPasskey"))]
pub struct Registered {
    pub id: String,
    pub name: String,
}

fn may_register(ciam: &Ciam, s: &Session) -> Result<()> {
    require_fresh(ciam, s)?;
    // Staff sign in through the company's provider; a passkey would outlive their offboarding.
    if s.user.eiam_uid.is_some() {
        return Err(Reason::PERMISSION_DENIED.into());
    }
    Ok(())
}

/// `POST /auth/passkeys/options`. Round trips: 1 (the account's passkeys) after authentication.
pub async fn register_options(ciam: &Ciam, s: &Session) -> Result<Options> {
    let cfg = config(ciam)?;
    may_register(ciam, s)?;
    let existing = items::items_of(ciam, &s.user.id).await?;
    if existing.len() >= LIMIT as usize {
        return Err(Reason::PASSKEY_LIMIT.into());
    }
    let u = &s.user;
    let masked = match u.identities().first() {
        Some(Identity::Mail(m)) => m.masked(),
        Some(Identity::Phone(p)) => p.masked(),
        None => String::new(),
    };
    let account = u.mail.as_deref().or(u.phone.as_deref()).unwrap_or("");
    let display = u.display_name.as_deref().unwrap_or("");
    let (name, display) = rp::user_names(account, display, &u.user_name, &masked);
    let (public_key, state) = rp::registration_options(
        &cfg,
        handle_of(&u.id)?,
        &name,
        &display,
        &descriptors(&existing),
    )
    .map_err(internal)?;
    Ok(Options {
        passkey_challenge: seal(ciam, Ceremony::Register, session_binding(ciam, s), state)?,
        public_key,
    })
}

/// `POST /auth/passkeys`: verifies the new credential and stores it with its uniqueness item,
/// one more on the account's count (at most 10) and the activity entry, in one transaction.
/// Round trips: 1 (the transaction) after authentication; 2 when it is refused (the reason is
/// read back).
pub async fn register(
    ciam: &Ciam,
    s: &Session,
    token: &str,
    credential: &Json,
    name: Option<&str>,
    client: &ClientInfo,
) -> Result<Registered> {
    let cfg = config(ciam)?;
    may_register(ciam, s)?;
    let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) => items::name(n)?,
        None => client
            .device
            .clone()
            .unwrap_or_else(|| "Passkey".to_owned()),
    };
    let t = Token::open(
        &ciam.keys,
        Ceremony::Register,
        &session_binding(ciam, s),
        ciam.now(),
        token,
    )?;
    let p = rp::verify_registration(&cfg, &t.state, credential).map_err(|r| refused(&r))?;
    let h = id_hash(&p.cred_id);
    let now = ciam.now();
    let uid = s.user.id.as_str();
    let mut ops = vec![
        TxOp::Put {
            item: Item::new(used_key(ciam, token)).expires(t.exp),
            cond: Some(Cond::NotExists),
        },
        TxOp::Put {
            item: Item::new(unique_key(&h))
                .with("userId", uid)
                .with("createdAt", now),
            cond: Some(Cond::NotExists),
        },
        TxOp::Put {
            item: PasskeyItem::new(uid, &p, &name, now, client.device.clone()).to_item(),
            cond: Some(Cond::NotExists),
        },
        TxOp::Update {
            key: profile_key(uid),
            ops: vec![Update::Add("passkeys".into(), 1)],
            cond: Some(
                same_session(s)
                    .and(Cond::attr_not_exists("passkeys").or(Cond::lt("passkeys", LIMIT))),
            ),
        },
        crate::audit::record_named(ciam, uid, Event::PasskeyAdded, &name, client),
    ];
    ops.extend(crate::events::two_factor_changed(ciam, &s.user, true));
    match ciam.store.transact(ops).await.won()? {
        Some(()) => Ok(Registered { id: h, name }),
        None => Err(why_not_registered(ciam, s, token, &h).await),
    }
}

/// Why the registration's transaction was cancelled: the credential is taken (by any account),
/// the limit was reached meanwhile, the challenge was used, or the session changed.
async fn why_not_registered(ciam: &Ciam, s: &Session, token: &str, h: &str) -> Error {
    let keys = [
        unique_key(h),
        profile_key(&s.user.id),
        used_key(ciam, token),
    ];
    match get_each(ciam.store.as_ref(), keys).await {
        Ok([taken, user, used]) => {
            if taken.is_some() {
                Reason::PASSKEY_EXISTS.into()
            } else if user
                .as_ref()
                .and_then(|u| u.n("passkeys"))
                .is_some_and(|n| n >= LIMIT)
            {
                Reason::PASSKEY_LIMIT.into()
            } else if used.is_some() {
                Reason::PASSKEY_CHALLENGE_EXPIRED.into()
            } else {
                Reason::AUTHORIZATION_FAILED.into()
            }
        }
        Err(e) => e.into(),
    }
}
