//! Which apps a session signed in to, for the sign-out that reaches them (issue 23,
//! docs/events-design.md §4): when a ticket or an OpenID Connect code is issued through a
//! session to an app that registered a Back-Channel Logout URI or a ticket logout URL
//! (`App::hears_logout`), the same transaction records `SESSAPP#<userId>` /
//! `<sid>#<appId>` {appId, sid, at}. When a session ends (a `session.ended` event, a
//! deactivation), the fan-out (`webhooks::notices`) reads the ended sessions' records (one
//! query), queues each app's notice and deletes the records. Apps that registered neither are
//! not recorded: their sign-ins cost what they cost before.
//!
//! The records have a partition of their own (not the user's `USER#`), so the AWS fan-out may
//! delete them without being allowed to delete anything of the account. A record lives as long
//! as its session can: the session's absolute deadline (`sessions::ABSOLUTE_SECS` after its
//! creation) and a day more, for a notice built late.

use crate::apps::App;
use crate::sessions::{sid, Session, ABSOLUTE_SECS};
use crate::Ciam;
use ciam_store::{Item, Key, Query, TxOp};

/// The partition prefix of the records (the AWS fan-out may query and delete there).
pub const PK_PREFIX: &str = "SESSAPP#";
/// The attribute of a `session.ended` event item naming the session that stays (a password
/// change ends the other sessions): not in any partner's payload.
pub const KEEP_SID: &str = "keepSid";
/// Attribute of an event item whose change ended the account's sessions though its kind is not
/// `session.ended` (a two-factor change, the support desk's identity replacement): the fan-out
/// tells the apps of every session but [`KEEP_SID`]'s (`webhooks::notices::ended`).
pub const ENDS_SESSIONS: &str = "endsSessions";

fn pk(user_id: &str) -> String {
    format!("{PK_PREFIX}{user_id}")
}

/// `SESSAPP#<userId>` / `<sid>#<appId>`.
pub fn record_key(user_id: &str, sid: &str, app_id: &str) -> Key {
    Key::new(pk(user_id), format!("{sid}#{app_id}"))
}

/// One record: the session `sid` signed in to the app `app_id` at `at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub key: Key,
    pub sid: String,
    pub app_id: String,
    pub at: i64,
}

impl Record {
    fn from_item(i: &Item) -> Option<Record> {
        let (sid, app) = i.key.sk.split_once('#')?;
        Some(Record {
            key: i.key.clone(),
            sid: sid.to_owned(),
            app_id: i.s("appId").unwrap_or(app).to_owned(),
            at: i.n("at").unwrap_or_default(),
        })
    }
}

/// The write recording that `s` signed in to `app`, when the app hears logouts (else None): one
/// more put in the transaction that issues the ticket or code. No condition: the same record
/// written again is the same record.
pub fn record_op(ciam: &Ciam, s: &Session, app: &App) -> Option<TxOp> {
    if !app.hears_logout() {
        return None;
    }
    let sid = sid(&s.key);
    let item = Item::new(record_key(&s.user.id, &sid, &app.app_id))
        .with("appId", app.app_id.as_str())
        .with("sid", sid.as_str())
        .with("at", ciam.now())
        .expires(s.created_at + ABSOLUTE_SECS + 86_400);
    Some(TxOp::Put { item, cond: None })
}

/// The records of `user_id`: of the session `sid` only, or all. Round trips: 1 query.
pub async fn records(ciam: &Ciam, user_id: &str, sid: Option<&str>) -> crate::Result<Vec<Record>> {
    let mut q = Query::partition(pk(user_id));
    if let Some(sid) = sid {
        q = q.prefix(format!("{sid}#"));
    }
    let items = ciam.store.query(q).await?;
    Ok(items.iter().filter_map(Record::from_item).collect())
}

/// The ids of the apps the session `sid` of `user_id` signed in to (those that hear logouts),
/// in no particular order. Round trips: 1 query.
pub async fn apps_of(ciam: &Ciam, user_id: &str, sid: &str) -> crate::Result<Vec<String>> {
    Ok(records(ciam, user_id, Some(sid))
        .await?
        .into_iter()
        .map(|r| r.app_id)
        .collect())
}

/// `event` (the put of a `session.ended` event that ends every session but `keep`) naming the
/// session that stays, so that its apps are not told (attribute [`KEEP_SID`] of the item).
pub fn keeping(event: Option<TxOp>, keep: &Key) -> Option<TxOp> {
    match event? {
        TxOp::Put { item, cond } => Some(TxOp::Put {
            item: item.with(KEEP_SID, sid(keep)),
            cond,
        }),
        other => Some(other),
    }
}

/// `event` (the put of an event whose change also ends the account's sessions, e.g.
/// `two_factor.changed`) marked so (attribute [`ENDS_SESSIONS`]), naming the session that stays
/// (`keep`, [`KEEP_SID`]) when there is one, so that the other sessions' apps get their logout
/// notices.
pub fn ending_sessions(event: Option<TxOp>, keep: Option<&Key>) -> Option<TxOp> {
    match event? {
        TxOp::Put { item, cond } => {
            let item = item.with(ENDS_SESSIONS, true);
            Some(TxOp::Put {
                item: match keep {
                    Some(k) => item.with(KEEP_SID, sid(k)),
                    None => item,
                },
                cond,
            })
        }
        other => Some(other),
    }
}
