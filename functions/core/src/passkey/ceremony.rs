//! The passkey ceremonies (docs/passkeys-design.md §3): options and finish of registration and
//! sign-in. Each options route answers `{passkeyChallenge, publicKey}` and writes nothing; each
//! finish opens the sealed token, verifies through [`super::rp`] and commits in one transaction
//! that also puts the token's used-marker (`attribute_not_exists`), so a challenge finishes once.

use super::items::{self, id_hash, passkey_key, unique_key, used_key, LIMIT};
use super::rp::{self, Refusal, StoredPasskey, USER_HANDLE_LEN};
use super::token::{Ceremony, Token};
use super::PasskeyConfig;
use crate::accounts::{finish_login, SignedIn, Who};
use crate::apps::app_key;
use crate::audit::Event;
use crate::client::ClientInfo;
use crate::lock::{clear_ops, ensure_unlocked};
use crate::sessions::{same_session, Session};
use crate::totp::require_fresh;
use crate::user::{profile_key, User};
use crate::validate::Identity;
use crate::{lock, Ciam, Error, LostRace, Reason, Result};
use ciam_store::{Cond, Item, TxOp, Update, Value};
use data_encoding::BASE64URL_NOPAD;
use serde::Serialize;
use serde_json::Value as Json;

/// What an options route answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Options {
    /// The sealed token to send back with the answer.
    pub passkey_challenge: String,
    /// The browser's `PublicKeyCredentialCreationOptionsJSON` or `...RequestOptionsJSON`.
    pub public_key: Json,
}

/// What the registration answers.
#[derive(Debug, Serialize)]
pub struct Registered {
    pub id: String,
    pub name: String,
}

/// The relying party of this deployment, or PASSKEY_UNAVAILABLE (no public URL, or an IP
/// literal host: a browser refuses an IP address as an RP ID).
pub fn config(ciam: &Ciam) -> Result<PasskeyConfig> {
    PasskeyConfig::new(
        Some(&ciam.config.public_url),
        ciam.config.passkey_rp_id.as_deref(),
        &ciam.config.passkey_origins,
    )
    .map_err(|e| Error {
        cause: Some(e.to_string()),
        ..Error::new(Reason::PASSKEY_UNAVAILABLE)
    })
}

/// A verification refusal as an answer: a body that is not a credential is INVALID_PARAMETER
/// on `credential`; anything else PASSKEY_VERIFY_FAILED.
fn refused(r: &Refusal) -> Error {
    match r {
        Refusal::Malformed(cause) => Error {
            cause: Some(cause.clone()),
            ..Error::field(
                Reason::INVALID_PARAMETER,
                "credential",
                "通行密钥应答格式不正确",
                "The passkey answer is malformed",
            )
        },
        Refusal::CounterWentBack | Refusal::Failed(_) => Error {
            cause: Some(r.to_string()),
            ..Error::new(Reason::PASSKEY_VERIFY_FAILED)
        },
    }
}

fn internal(r: Refusal) -> Error {
    Error::internal(r)
}

fn handle_of(user_id: &str) -> Result<[u8; USER_HANDLE_LEN]> {
    hex::decode(user_id)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| Error::internal("a userId that is not 32 hex digits"))
}

/// The binding of a ceremony made for a session: the user and a keyed hash of the session.
fn session_binding(ciam: &Ciam, s: &Session) -> String {
    let tag = ciam.keys.keyed_hash("passkey-session", s.key.sk.as_bytes());
    format!("{}|{}", s.user.id, &tag[..32])
}

fn seal(ciam: &Ciam, ceremony: Ceremony, binding: String, state: Vec<u8>) -> Result<String> {
    Token::new(ceremony, ciam.now(), binding, state).seal(&ciam.keys, ciam.entropy.as_ref())
}

/// The `PASSKEY#` item of a new credential.
fn credential_item(
    user_id: &str,
    p: &StoredPasskey,
    name: &str,
    now: i64,
    device: Option<String>,
) -> Item {
    Item::new(passkey_key(user_id, &id_hash(&p.cred_id)))
        .with("credId", BASE64URL_NOPAD.encode(&p.cred_id))
        .with("pub", Value::B(p.public.clone()))
        .with("alg", p.alg)
        .with("signCount", i64::from(p.sign_count))
        .with("uv", p.uv)
        .with("be", p.be)
        .with("bs", p.bs)
        .with_opt("attachment", p.attachment.clone())
        .with("transports", Value::strings(&p.transports))
        .with_opt("aaguid", p.aaguid.clone())
        .with("name", name)
        .with("createdAt", now)
        .with_opt("device", device)
}

/// The stored credential of a `PASSKEY#` item.
fn stored_of(i: &Item) -> Option<StoredPasskey> {
    Some(StoredPasskey {
        cred_id: BASE64URL_NOPAD.decode(i.s("credId")?.as_bytes()).ok()?,
        public: i.b("pub")?.to_vec(),
        alg: i.n("alg").unwrap_or(0),
        sign_count: u32::try_from(i.n("signCount").unwrap_or(0)).ok()?,
        uv: i.bool("uv").unwrap_or(false),
        be: i.bool("be").unwrap_or(false),
        bs: i.bool("bs").unwrap_or(false),
        attachment: i.s("attachment").map(str::to_owned),
        transports: i.strings("transports"),
        aaguid: i.s("aaguid").map(str::to_owned),
    })
}

/// The account's credentials as `excludeCredentials` / `allowCredentials` entries.
fn descriptors(items: &[Item]) -> Vec<(Vec<u8>, Vec<String>)> {
    items
        .iter()
        .filter_map(|i| {
            let id = BASE64URL_NOPAD.decode(i.s("credId")?.as_bytes()).ok()?;
            Some((id, i.strings("transports")))
        })
        .collect()
}

// ---- registration ----

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
    let ops = vec![
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
            item: credential_item(uid, &p, &name, now, client.device.clone()),
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
    match ciam.store.get_many(&keys).await {
        Ok(found) => {
            if found[0].is_some() {
                Reason::PASSKEY_EXISTS.into()
            } else if found[1]
                .as_ref()
                .and_then(|u| u.n("passkeys"))
                .is_some_and(|n| n >= LIMIT)
            {
                Reason::PASSKEY_LIMIT.into()
            } else if found[2].is_some() {
                Reason::PASSKEY_CHALLENGE_EXPIRED.into()
            } else {
                Reason::AUTHORIZATION_FAILED.into()
            }
        }
        Err(e) => e.into(),
    }
}

// ---- sign-in ----

fn valid_app_id(app_id: &str) -> bool {
    !app_id.is_empty()
        && app_id.len() <= 64
        && app_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `POST /auth/login/passkey/options`: a discoverable request (no `allowCredentials`), bound to
/// the embedding app when `app_id` is given (the finish then accepts a framed assertion from
/// that app's `frameOrigins`). Round trips: 0.
pub fn login_options(ciam: &Ciam, app_id: Option<&str>) -> Result<Options> {
    let cfg = config(ciam)?;
    let binding = match app_id.map(str::trim).filter(|a| !a.is_empty()) {
        Some(a) if valid_app_id(a) => a.to_owned(),
        Some(_) => {
            return Err(Error::field(
                Reason::INVALID_PARAMETER,
                "appId",
                "应用标识不正确",
                "The appId is malformed",
            ))
        }
        None => String::new(),
    };
    let (public_key, state) = rp::signin_options(&cfg).map_err(internal)?;
    Ok(Options {
        passkey_challenge: seal(ciam, Ceremony::Signin, binding, state)?,
        public_key,
    })
}

fn not_found() -> Error {
    Error::new(Reason::PASSKEY_NOT_FOUND)
}

/// `POST /auth/login/passkey`: a passkey with user verification is two factors, so the session
/// is issued whatever two-factor says. Round trips: 2 (the user, the credential and the app in
/// one batch; then the transaction). A wrong assertion counts on the account lock (+1 or 2).
pub async fn login(
    ciam: &Ciam,
    token: &str,
    credential: &Json,
    client: &ClientInfo,
) -> Result<SignedIn> {
    let cfg = config(ciam)?;
    let now = ciam.now();
    let t = Token::open_unbound(&ciam.keys, Ceremony::Signin, now, token)?;
    let (handle, cred_id) = rp::assertion_ids(credential).map_err(|r| refused(&r))?;
    let handle = handle.ok_or_else(not_found)?;
    let user_id = hex::encode(handle);
    let h = id_hash(&cred_id);
    let mut keys = vec![profile_key(&user_id), passkey_key(&user_id, &h)];
    if !t.binding.is_empty() {
        keys.push(app_key(&t.binding));
    }
    let found = ciam.store.get_many(&keys).await?;
    let user = found[0]
        .as_ref()
        .and_then(User::from_item)
        .filter(|u| !u.deactivated)
        .ok_or_else(not_found)?;
    let item = found[1].as_ref().ok_or_else(not_found)?;
    let top_origins = match found.get(2) {
        None => None,
        Some(Some(app)) => Some(app.strings("frameOrigins")),
        // The app was deleted since the options: start again.
        Some(None) => return Err(Reason::PASSKEY_CHALLENGE_EXPIRED.into()),
    };
    ensure_unlocked(&user, now)?;
    let stored = stored_of(item).ok_or_else(|| Error::internal("a malformed PASSKEY# item"))?;
    let asserted = match rp::verify_signin(
        &cfg,
        &t.state,
        credential,
        handle,
        &stored,
        top_origins.as_deref(),
    ) {
        Ok(a) => a,
        Err(r) => return Err(assertion_refused(ciam, &user, item, &r, client, token).await),
    };
    let mut ops = vec![
        TxOp::Put {
            item: Item::new(used_key(ciam, token)).expires(t.exp),
            cond: Some(Cond::NotExists),
        },
        asserted_op(&user.id, &h, &stored, &asserted, now),
    ];
    if let Some(clear) = clear_ops(&user) {
        ops.push(TxOp::Update {
            key: profile_key(&user.id),
            ops: clear,
            cond: Some(Cond::Exists),
        });
    }
    let who = Who {
        enable_totp: false,
        amr: amr_of(&stored).to_vec(),
        ..Who::from(&user)
    };
    finish_login(ciam, who, client, ops, Reason::PASSKEY_CHALLENGE_EXPIRED).await
}

/// The `amr` of a passkey with user verification (RFC 8176): something you have (`hwk`: a key
/// bound to its device; `swk`: a synced passkey, whose key is backed up by its provider), its
/// unlocking (`user`), and so more than one factor (`mfa`).
fn amr_of(stored: &StoredPasskey) -> [&'static str; 3] {
    let have = if stored.be { "swk" } else { "hwk" };
    [have, "user", "mfa"]
}

/// The credential's update after an assertion: the new counter (only if nobody stored another
/// meanwhile), the flags, when it was used.
fn asserted_op(user_id: &str, h: &str, stored: &StoredPasskey, a: &rp::Asserted, now: i64) -> TxOp {
    TxOp::Update {
        key: passkey_key(user_id, h),
        ops: vec![
            Update::Set("signCount".into(), i64::from(a.sign_count).into()),
            Update::Set("uv".into(), a.uv.into()),
            Update::Set("be".into(), a.be.into()),
            Update::Set("bs".into(), a.bs.into()),
            Update::Set("lastUsedAt".into(), now.into()),
        ],
        cond: Some(Cond::Exists.and(Cond::eq("signCount", i64::from(stored.sign_count)))),
    }
}

/// A refused assertion of a known credential: a malformed body counts nothing; any other
/// refusal counts one failure on the account lock, and a counter that went back is recorded in
/// the account's activity as a possibly cloned authenticator.
async fn assertion_refused(
    ciam: &Ciam,
    user: &User,
    item: &Item,
    r: &Refusal,
    client: &ClientInfo,
    token: &str,
) -> Error {
    let base = refused(r);
    if matches!(r, Refusal::Malformed(_)) {
        return base;
    }
    if matches!(r, Refusal::CounterWentBack) {
        // The very answer that already finished this challenge, sent again: a replay, not a
        // clone and not a guess.
        match ciam.store.get(&used_key(ciam, token)).await {
            Ok(Some(_)) => return Reason::PASSKEY_CHALLENGE_EXPIRED.into(),
            Ok(None) => {}
            Err(e) => return e.into(),
        }
        let name = item.s("name").unwrap_or_default();
        tracing::warn!("passkey signature counter went back: possibly a cloned authenticator");
        let entry = crate::audit::entry(ciam, &user.id, Event::PasskeyCloneSuspected, client)
            .with("name", name);
        if let Err(e) = ciam.store.put(entry, None).await {
            tracing::warn!(error = %e, "could not record passkeyCloneSuspected");
        }
    }
    lock::fail(ciam, &user.id, base).await
}

// ---- the two-factor step ----

/// `POST /auth/login/passkey/mfa/options`: the account's passkeys for the second step of the
/// sign-in whose `challenge` (NEED_TOTP_VERIFY) is given. PASSKEY_NOT_FOUND when it has none.
/// Round trips: 3 (the challenge, its user, the passkeys).
pub async fn mfa_options(ciam: &Ciam, challenge: &str) -> Result<Options> {
    let cfg = config(ciam)?;
    let (key, user, _) = crate::totp::passkey_step_user(ciam, challenge).await?;
    let existing = items::items_of(ciam, &user.id).await?;
    if existing.is_empty() {
        return Err(not_found());
    }
    let (public_key, state) =
        rp::assertion_options(&cfg, &descriptors(&existing)).map_err(internal)?;
    Ok(Options {
        passkey_challenge: seal(ciam, Ceremony::Mfa, key.pk, state)?,
        public_key,
    })
}

/// `POST /auth/login/passkey/mfa`: the second step by passkey; the session as after an
/// authenticator code. Round trips: 4 (the challenge, its user, the credential, the
/// transaction). A refusal counts on the account lock.
pub async fn login_mfa(
    ciam: &Ciam,
    challenge: &str,
    token: &str,
    credential: &Json,
    client: &ClientInfo,
) -> Result<SignedIn> {
    let cfg = config(ciam)?;
    let (key, user, first) = crate::totp::passkey_step_user(ciam, challenge).await?;
    let t = Token::open(&ciam.keys, Ceremony::Mfa, &key.pk, ciam.now(), token)?;
    let (h, item, stored) = own_credential(ciam, &user.id, credential).await?;
    let a = match rp::verify_assertion(&cfg, &t.state, credential, handle_of(&user.id)?, &stored) {
        Ok(a) => a,
        Err(r) => return Err(assertion_refused(ciam, &user, &item, &r, client, token).await),
    };
    let mut ops = vec![
        TxOp::Put {
            item: Item::new(used_key(ciam, token)).expires(t.exp),
            cond: Some(Cond::NotExists),
        },
        asserted_op(&user.id, &h, &stored, &a, ciam.now()),
    ];
    if let Some(clear) = clear_ops(&user) {
        ops.push(TxOp::Update {
            key: profile_key(&user.id),
            ops: clear,
            cond: Some(Cond::Exists),
        });
    }
    let amr = crate::sessions::amr_after(&first, &amr_of(&stored));
    let (signed, ops) = crate::totp::finish_step(ciam, &user, key, ops, client, &amr);
    ciam.store
        .transact(ops)
        .await
        .or_reason(Reason::PASSKEY_CHALLENGE_EXPIRED)?;
    Ok(signed)
}

/// The credential of an assertion, which must be one of `user_id`'s passkeys: its `h`, item and
/// stored form. Round trips: 1.
async fn own_credential(
    ciam: &Ciam,
    user_id: &str,
    credential: &Json,
) -> Result<(String, Item, StoredPasskey)> {
    let id = rp::assertion_id(credential).map_err(|r| refused(&r))?;
    let h = id_hash(&id);
    let item = ciam
        .store
        .get(&passkey_key(user_id, &h))
        .await?
        .ok_or_else(not_found)?;
    let stored = stored_of(&item).ok_or_else(|| Error::internal("a malformed PASSKEY# item"))?;
    Ok((h, item, stored))
}

// ---- the fresh proof ----

/// `POST /auth/reauth/passkey/options`: the account's passkeys, for a fresh proof of identity.
/// PASSKEY_NOT_FOUND when it has none. Round trips: 1 after authentication.
pub async fn reauth_options(ciam: &Ciam, s: &Session) -> Result<Options> {
    let cfg = config(ciam)?;
    let existing = items::items_of(ciam, &s.user.id).await?;
    if existing.is_empty() {
        return Err(not_found());
    }
    let (public_key, state) =
        rp::assertion_options(&cfg, &descriptors(&existing)).map_err(internal)?;
    Ok(Options {
        passkey_challenge: seal(ciam, Ceremony::Reauth, session_binding(ciam, s), state)?,
        public_key,
    })
}

/// `POST /auth/reauth/passkey`: a fresh proof of identity by passkey (as the authenticator code
/// or the password give by POST /auth/totp/verify). Round trips: 2 after authentication (the
/// credential, the transaction). A refusal counts on the account lock.
pub async fn reauth(
    ciam: &Ciam,
    s: &Session,
    token: &str,
    credential: &Json,
    client: &ClientInfo,
) -> Result<()> {
    let cfg = config(ciam)?;
    let now = ciam.now();
    ensure_unlocked(&s.user, now)?;
    let t = Token::open(
        &ciam.keys,
        Ceremony::Reauth,
        &session_binding(ciam, s),
        now,
        token,
    )?;
    let (h, item, stored) = own_credential(ciam, &s.user.id, credential).await?;
    let a = match rp::verify_assertion(&cfg, &t.state, credential, handle_of(&s.user.id)?, &stored)
    {
        Ok(a) => a,
        Err(r) => return Err(assertion_refused(ciam, &s.user, &item, &r, client, token).await),
    };
    let mut ops = vec![
        TxOp::Put {
            item: Item::new(used_key(ciam, token)).expires(t.exp),
            cond: Some(Cond::NotExists),
        },
        asserted_op(&s.user.id, &h, &stored, &a, now),
        TxOp::Update {
            key: s.key.clone(),
            ops: vec![
                Update::Set("authAt".into(), now.into()),
                Update::Set("amr".into(), Value::strings(amr_of(&stored))),
            ],
            cond: Some(Cond::Exists.and(Cond::attr_not_exists("endedAt"))),
        },
    ];
    if let Some(clear) = clear_ops(&s.user) {
        ops.push(TxOp::Update {
            key: profile_key(&s.user.id),
            ops: clear,
            cond: Some(Cond::Exists),
        });
    }
    ciam.store
        .transact(ops)
        .await
        .or_reason(Reason::PASSKEY_CHALLENGE_EXPIRED)?;
    Ok(())
}
