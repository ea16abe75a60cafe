//! Remembered consent: the user's decision to let an app see the scopes it asks for, one item
//! per user and app, `USER#<id>` / `CONSENT#<appId>` {appId, scopes, grantedAt}. A consent
//! counts only while it covers every scope the app asks for now: an app that adds a scope asks
//! again. The ticket flow and the OpenID Connect flow both write it in the transaction that
//! issues the ticket or the code, and both read it to skip the consent screen.

use crate::apps;
use crate::error::Result;
use crate::user::user_pk;
use crate::Ciam;
use ciam_store::{Item, Key, TxOp, Value};

pub const PREFIX: &str = "CONSENT#";

pub fn consent_key(user_id: &str, app_id: &str) -> Key {
    Key::new(user_pk(user_id), format!("{PREFIX}{app_id}"))
}

/// The write that remembers the user's "Allow" for `app` (its current scopes); goes into the
/// transaction that issues the ticket or code.
pub fn grant_op(ciam: &Ciam, user_id: &str, app: &Item) -> TxOp {
    let app_id = app.s("appId").unwrap_or_default();
    let scopes = Value::L(apps::scopes(app).into_iter().map(Value::S).collect());
    TxOp::Put {
        item: Item::new(consent_key(user_id, app_id))
            .with("appId", app_id)
            .with("scopes", scopes)
            .with("grantedAt", ciam.now()),
        cond: None,
    }
}

/// Whether a stored consent item covers every scope `app` asks for now.
pub fn covers(consent: &Item, app: &Item) -> bool {
    let granted = match consent.attrs.get("scopes") {
        Some(Value::L(l)) => l
            .iter()
            .filter_map(|v| match v {
                Value::S(s) => Some(s.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>(),
        _ => Vec::new(),
    };
    apps::scopes(app)
        .iter()
        .all(|s| granted.contains(&s.as_str()))
}

/// Whether the user has allowed `app` its current scopes. Round trips: 1.
pub async fn granted(ciam: &Ciam, user_id: &str, app: &Item) -> Result<bool> {
    let key = consent_key(user_id, app.s("appId").unwrap_or_default());
    Ok(ciam
        .store
        .get(&key)
        .await?
        .is_some_and(|c| covers(&c, app)))
}
