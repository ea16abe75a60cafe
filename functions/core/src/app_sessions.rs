//! Which apps a session signed in to, for the sign-out that reaches them (issue 23,
//! docs/events-design.md §4): when a ticket or an OpenID Connect code is issued through a
//! session to an app that registered a Back-Channel Logout URI or a ticket logout URL
//! (`App::hears_logout`), the same transaction records `USER#<userId>` /
//! `SESSAPP#<sid>#<appId>` {appId, at}. When the session ends, `oidc::logout::notices` reads the
//! session's records (one query) and builds each app's notice. Apps that registered neither are
//! not recorded: their sign-ins cost what they cost before.
//!
//! The record lives as long as its session can: the session's absolute deadline
//! (`sessions::ABSOLUTE_SECS` after its creation) and a day more, for a notice built late.

use crate::apps::App;
use crate::sessions::{sid, Session, ABSOLUTE_SECS};
use crate::user::user_pk;
use crate::Ciam;
use ciam_store::{Item, Key, Query, TxOp};

const PREFIX: &str = "SESSAPP#";

/// `USER#<userId>` / `SESSAPP#<sid>#<appId>`.
pub fn record_key(user_id: &str, sid: &str, app_id: &str) -> Key {
    Key::new(user_pk(user_id), format!("{PREFIX}{sid}#{app_id}"))
}

/// The write recording that `s` signed in to `app`, when the app hears logouts (else None): one
/// more put in the transaction that issues the ticket or code. No condition: the same record
/// written again is the same record.
pub fn record_op(ciam: &Ciam, s: &Session, app: &App) -> Option<TxOp> {
    if !app.hears_logout() {
        return None;
    }
    let item = Item::new(record_key(&s.user.id, &sid(&s.key), &app.app_id))
        .with("appId", app.app_id.as_str())
        .with("at", ciam.now())
        .expires(s.created_at + ABSOLUTE_SECS + 86_400);
    Some(TxOp::Put { item, cond: None })
}

/// The ids of the apps the session `sid` of `user_id` signed in to (those that hear logouts),
/// in no particular order. Round trips: 1 query.
pub async fn apps_of(ciam: &Ciam, user_id: &str, sid: &str) -> crate::Result<Vec<String>> {
    let items = ciam
        .store
        .query(Query::partition(user_pk(user_id)).prefix(format!("{PREFIX}{sid}#")))
        .await?;
    Ok(items
        .iter()
        .filter_map(|i| i.s("appId").map(str::to_owned))
        .collect())
}
