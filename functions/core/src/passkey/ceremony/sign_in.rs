//! Signing in by passkey alone: a discoverable request, optionally bound to an embedding app,
//! and its finish, which issues the session (a passkey with user verification is two factors).

use super::{
    amr_of, asserted_op, assertion_refused, config, internal, not_found, refused, seal, stored_of,
    Options,
};
use crate::accounts::{finish_login, SignedIn, Who};
use crate::apps::{app_key, App, AppId};
use crate::client::ClientInfo;
use crate::lock::{clear_ops, ensure_unlocked};
use crate::passkey::items::{id_hash, passkey_key, used_key, PasskeyItem};
use crate::passkey::rp;
use crate::passkey::token::{Ceremony, Token};
use crate::user::{profile_key, User};
use crate::{Ciam, Error, Reason, Result};
use ciam_store::{Cond, Item, TxOp};
use serde_json::Value as Json;

/// `POST /auth/login/passkey/options`: a discoverable request (no `allowCredentials`), bound to
/// the embedding app when `app_id` is given (the finish then accepts a framed assertion from
/// that app's `frameOrigins`). Round trips: 0.
pub fn login_options(ciam: &Ciam, app_id: Option<&str>) -> Result<Options> {
    let cfg = config(ciam)?;
    let binding = embedding_app(app_id)?;
    let (public_key, state) = rp::signin_options(&cfg).map_err(internal)?;
    Ok(Options {
        passkey_challenge: seal(ciam, Ceremony::Signin, binding, state)?,
        public_key,
    })
}

/// The embedding app's id of a framed ceremony ('' when none): it goes into the token's
/// binding, so only the characters app ids are made of.
pub(super) fn embedding_app(app_id: Option<&str>) -> Result<String> {
    match app_id.map(str::trim).filter(|a| !a.is_empty()) {
        Some(a) if AppId::parse(a).is_some_and(|id| id.is_plain()) => Ok(a.to_owned()),
        Some(_) => Err(Error::field(
            Reason::INVALID_PARAMETER,
            "appId",
            "应用标识不正确",
            "The appId is malformed",
        )),
        None => Ok(String::new()),
    }
}

/// `POST /auth/login/passkey`: a passkey with user verification is two factors, so the session
/// is issued whatever two-factor says; a suspended account's valid assertion is answered
/// ACCOUNT_SUSPENDED instead. Round trips: 2 (the user, the credential and the app in
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
    let [user, passkey, app @ ..] = found.as_slice() else {
        return Err(not_found());
    };
    let user = user
        .as_ref()
        .and_then(User::from_item)
        // A suspended account's assertion is judged as any other (a failed one answers and
        // counts the same); only a valid one is told the truth, below.
        .filter(|u| !u.deactivated)
        .ok_or_else(not_found)?;
    let passkey = passkey
        .as_ref()
        .and_then(PasskeyItem::from_item)
        .ok_or_else(not_found)?;
    let top_origins = match app.first() {
        None => None,
        Some(Some(app)) => Some(App::from_item(app).frame_origins),
        // The app was deleted since the options: start again.
        Some(None) => return Err(Reason::PASSKEY_CHALLENGE_EXPIRED.into()),
    };
    ensure_unlocked(&user, now)?;
    let stored = stored_of(&passkey)?;
    let asserted = match rp::verify_signin(
        &cfg,
        &t.state,
        credential,
        handle,
        &stored,
        top_origins.as_deref(),
    ) {
        Ok(a) => a,
        Err(r) => return Err(assertion_refused(ciam, &user, &passkey, &r, client, token).await),
    };
    if user.suspended_at.is_some() {
        // The passkey proved the owner (docs/console-design.md §4): no session, nothing written.
        return Err(Reason::ACCOUNT_SUSPENDED.into());
    }
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
