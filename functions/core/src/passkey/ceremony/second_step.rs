//! One of the account's own passkeys as a second proof: the sign-in's two-factor step (after
//! the password step's NEED_TOTP_VERIFY) and the fresh proof of a signed-in session.

use super::{
    amr_of, asserted_op, assertion_refused, config, descriptors, handle_of, internal, not_found,
    refused, seal, session_binding, stored_of, Options,
};
use crate::accounts::SignedIn;
use crate::client::ClientInfo;
use crate::lock::{clear_ops, ensure_unlocked};
use crate::passkey::items::{self, id_hash, passkey_key, used_key, PasskeyItem};
use crate::passkey::rp::{self, StoredPasskey};
use crate::passkey::token::{Ceremony, Token};
use crate::sessions::Session;
use crate::user::profile_key;
use crate::{Ciam, LostRace, Reason, Result};
use ciam_store::{Cond, Item, TxOp, Update, Value};
use serde_json::Value as Json;

/// `POST /auth/login/passkey/mfa/options`: the account's passkeys for the second step of the
/// sign-in whose `challenge` (NEED_TOTP_VERIFY) is given. PASSKEY_NOT_FOUND when it has none.
/// With `app_id` (the embedded sign-in), the finish accepts a framed assertion from that app's
/// `frameOrigins`, as the first-step passkey does. Round trips: 3 (the challenge, its user, the
/// passkeys).
pub async fn mfa_options(ciam: &Ciam, challenge: &str, app_id: Option<&str>) -> Result<Options> {
    let cfg = config(ciam)?;
    let app = super::sign_in::embedding_app(app_id)?;
    let (key, user, _) = crate::totp::passkey_step_user(ciam, challenge).await?;
    let existing = items::items_of(ciam, &user.id).await?;
    if existing.is_empty() {
        return Err(not_found());
    }
    let (public_key, state) =
        rp::assertion_options(&cfg, &descriptors(&existing)).map_err(internal)?;
    let binding = if app.is_empty() {
        key.pk
    } else {
        format!("{}{APP_SEP}{app}", key.pk)
    };
    Ok(Options {
        passkey_challenge: seal(ciam, Ceremony::Mfa, binding, state)?,
        public_key,
    })
}

/// Between the sign-in step's key and the embedding app's id in a framed step's binding.
const APP_SEP: char = '|';

/// The allowed top origins of a step's token bound to `pk`: None unframed, the embedding app's
/// `frameOrigins` when the options named one (PASSKEY_CHALLENGE_EXPIRED when the binding is not
/// this step's or the app is gone). Round trips: 1 when framed, else 0.
async fn step_top_origins(ciam: &Ciam, pk: &str, binding: &str) -> Result<Option<Vec<String>>> {
    if binding == pk {
        return Ok(None);
    }
    let app = binding
        .strip_prefix(pk)
        .and_then(|r| r.strip_prefix(APP_SEP))
        .ok_or(Reason::PASSKEY_CHALLENGE_EXPIRED)?;
    let item = ciam.store.get(&crate::apps::app_key(app)).await?;
    let app = item.ok_or(Reason::PASSKEY_CHALLENGE_EXPIRED)?;
    Ok(Some(crate::apps::App::from_item(&app).frame_origins))
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
    let t = Token::open_unbound(&ciam.keys, Ceremony::Mfa, ciam.now(), token)?;
    let top_origins = step_top_origins(ciam, &key.pk, &t.binding).await?;
    let (h, item, stored) = own_credential(ciam, &user.id, credential).await?;
    let a = match rp::verify_assertion(
        &cfg,
        &t.state,
        credential,
        handle_of(&user.id)?,
        &stored,
        top_origins.as_deref(),
    ) {
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
    let amr = crate::sessions::amr_after(&first.amr, &amr_of(&stored));
    let (signed, ops) = crate::totp::finish_step(ciam, &user, key, ops, client, &amr, first);
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
) -> Result<(String, PasskeyItem, StoredPasskey)> {
    let id = rp::assertion_id(credential).map_err(|r| refused(&r))?;
    let h = id_hash(&id);
    let passkey = ciam
        .store
        .get(&passkey_key(user_id, &h))
        .await?
        .as_ref()
        .and_then(PasskeyItem::from_item)
        .ok_or_else(not_found)?;
    let stored = stored_of(&passkey)?;
    Ok((h, passkey, stored))
}

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
    let a = match rp::verify_assertion(
        &cfg,
        &t.state,
        credential,
        handle_of(&s.user.id)?,
        &stored,
        None,
    ) {
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
                // Added to the session's, as `sessions::mark_fresh` does: the first step's
                // method stays first (`Session::method`).
                Update::Set(
                    "amr".into(),
                    Value::strings(crate::sessions::amr_after(&s.amr, &amr_of(&stored))),
                ),
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
