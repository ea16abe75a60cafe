//! Sessions: an opaque token `<userId>.<43 chars of base64url>` (256 random bits), stored only as
//! a keyed hash under the user's partition (`USER#<id>` / `SESSION#<hash>`), so validating reads
//! the session and the user in one round trip. During a root key rotation's overlap the same
//! read also asks for the key under the previous root, so sessions created before the rotation
//! keep working (no extra round trip; one more item in the batch) until the previous root is
//! removed. 30 minutes idle and a 12-hour absolute cap, both
//! enforced here; the idle refresh writes at most once a minute. Revocation of every session of
//! a user is one write: bump the user's `sessGen`; sessions stamped with an older one are dead.
//!
//! The session item is also the sign-in's entry in the security activity (docs/cost.md: one item
//! less in the sign-in's transaction, 2 write units): it is kept `audit::KEEP_SECS` (the item's
//! expiry) while its life as a session ends by its `ends` attribute (the idle or absolute
//! deadline, whichever is first) or by `endedAt` (signed out, or ended from the session list).
//! A session written before this has no `ends`: its item expiry is its deadline, as before.

use crate::error::{Error, Result};
use crate::user::{profile_key, user_pk, User};
use crate::{random, Ciam, LostRace, Reason};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_store::{Cond, Item, Key, Update};

pub const IDLE_SECS: i64 = 30 * 60;
pub const ABSOLUTE_SECS: i64 = 12 * 60 * 60;
pub const REFRESH_AFTER: i64 = 60;

#[derive(Clone, Debug)]
pub struct Session {
    pub user: User,
    pub key: Key,
    pub created_at: i64,
    /// When this session last proved who it is (sign-in, password, two-factor code).
    pub auth_at: i64,
    /// How that proof was made (RFC 8176 values; empty for staff and older sessions).
    pub amr: Vec<String>,
    /// When a console request last used it (`consoleAt`, written at most once a minute by
    /// `console::gate`); None before its first console request.
    pub console_at: Option<i64>,
    /// The organization whose connection this session signed in through (`org`), the default
    /// of its authorize requests (docs/organizations-connections.md §3); None otherwise.
    pub org: Option<String>,
    /// The sign-in method when its `amr` cannot tell it (`method`: a provider's name, or
    /// `organization` for a connection's); None otherwise ([`Session::method`]).
    pub method: Option<String>,
}

impl Session {
    /// How this session signed in, in the names of an organization's `allowedMethods`
    /// (`org::policy::METHODS`): the stored `method` (a provider's sign-in), else the first
    /// `amr` value that names one: `pwd` password, `email`/`sms` code, `hwk`/`swk` passkey. A
    /// later proof (a step-up) appends to `amr` and does not change it. None for staff and
    /// older sessions.
    pub fn method(&self) -> Option<&str> {
        if let Some(m) = &self.method {
            return Some(m);
        }
        self.amr.iter().find_map(|m| match m.as_str() {
            "pwd" => Some("password"),
            "email" | "sms" => Some("code"),
            "hwk" | "swk" => Some("passkey"),
            _ => None,
        })
    }
}

/// `item` (a session) with the methods of its proof of identity.
fn with_amr<'a>(item: Item, amr: impl IntoIterator<Item = &'a str>) -> Item {
    let amr: Vec<&str> = amr.into_iter().collect();
    if amr.is_empty() {
        item
    } else {
        item.with("amr", ciam_store::Value::strings(amr))
    }
}

/// The `amr` of a proof made after `first` (a second step): both, each value once.
pub fn amr_after(first: &[String], then: &[&str]) -> Vec<String> {
    let mut all = first.to_vec();
    for m in then {
        if !all.iter().any(|a| a == m) {
            all.push((*m).to_owned());
        }
    }
    all
}

/// Condition for writes made on behalf of `s`: the profile exists and no sign-out-everywhere or
/// password change has happened since the session was loaded.
pub fn same_session(s: &Session) -> Cond {
    Cond::Exists.and(Cond::eq("sessGen", s.user.sess_gen))
}

fn session_key(ciam: &Ciam, user_id: &str, secret: &[u8]) -> Key {
    session_key_under(&ciam.keys, user_id, secret)
}

fn session_key_under(keys: &crate::Keys, user_id: &str, secret: &[u8]) -> Key {
    Key::new(
        user_pk(user_id),
        format!("SESSION#{}", keys.keyed_hash("session", secret)),
    )
}

fn expiry(created: i64, last_seen: i64) -> i64 {
    (last_seen + IDLE_SECS).min(created + ABSOLUTE_SECS)
}

/// A session item (`USER#<id>` / `SESSION#<hash>`), which is also its sign-in's activity entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionItem {
    pub key: Key,
    pub created_at: i64,
    pub last_seen: i64,
    /// The idle or absolute deadline, whichever is first; None on a session written before it
    /// existed, whose item expiry was its deadline.
    pub ends: Option<i64>,
    /// The user's session generation it was stamped with (`gen`).
    pub sess_gen: Option<i64>,
    /// When it last proved who it is; None on older sessions (then `created_at`).
    pub auth_at: Option<i64>,
    pub amr: Vec<String>,
    pub device: Option<String>,
    pub country: Option<String>,
    /// When it was signed out or ended from the session list.
    pub ended_at: Option<i64>,
    /// The organization of the connection it signed in through (`org`).
    pub org: Option<String>,
    /// The provider it signed in through (`method`), when its `amr` cannot tell.
    pub method: Option<String>,
    /// The item's expiry: when it leaves the security activity.
    pub expires_at: Option<i64>,
}

impl SessionItem {
    pub fn from_item(i: &Item) -> SessionItem {
        SessionItem {
            key: i.key.clone(),
            created_at: i.n("createdAt").unwrap_or(0),
            last_seen: i.n("lastSeen").unwrap_or(0),
            ends: i.n("ends"),
            sess_gen: i.n("gen"),
            auth_at: i.n("authAt"),
            amr: i.strings("amr"),
            device: i.s("device").map(str::to_owned),
            country: i.s("country").map(str::to_owned),
            ended_at: i.n("endedAt"),
            org: i.s("org").map(str::to_owned),
            method: i.s("method").map(str::to_owned),
            expires_at: i.expires_at,
        }
    }

    pub fn to_item(&self) -> Item {
        let item = Item::new(self.key.clone())
            .with("createdAt", self.created_at)
            .with("lastSeen", self.last_seen)
            .with_opt("ends", self.ends)
            .with_opt("gen", self.sess_gen)
            .with_opt("authAt", self.auth_at)
            .with_opt("device", self.device.clone())
            .with_opt("country", self.country.clone())
            .with_opt("endedAt", self.ended_at)
            .with_opt("org", self.org.clone())
            .with_opt("method", self.method.clone());
        let item = with_amr(item, self.amr.iter().map(String::as_str));
        match self.expires_at {
            Some(at) => item.expires(at),
            None => item,
        }
    }

    /// Whether it still serves as a session at `now` (not signed out, before its idle and
    /// absolute deadlines).
    pub fn is_live(&self, now: i64) -> bool {
        let ends = self.ends.or(self.expires_at).unwrap_or(0);
        self.ended_at.is_none() && ends > now
    }

    /// The deadline a new session's holder is told (`expiresAt` of the sign-in's answer).
    pub fn deadline(&self) -> i64 {
        self.ends.unwrap_or_default()
    }
}

/// A new session for `user`: the token to hand out once and the item to write.
pub fn mint(ciam: &Ciam, user: &User, client: &crate::client::ClientInfo) -> (String, Item) {
    let (token, rec) = mint_for(ciam, &user.id, user.sess_gen, client);
    (token, rec.to_item())
}

/// A new session for the user `user_id` on session generation `sess_gen`, as a record (the
/// caller adds its `amr`).
pub fn mint_for(
    ciam: &Ciam,
    user_id: &str,
    sess_gen: i64,
    client: &crate::client::ClientInfo,
) -> (String, SessionItem) {
    let secret = random::<32>(ciam.entropy.as_ref());
    let now = ciam.now();
    let token = format!("{user_id}.{}", URL_SAFE_NO_PAD.encode(secret));
    let rec = SessionItem {
        key: session_key(ciam, user_id, &secret),
        created_at: now,
        last_seen: now,
        ends: Some(expiry(now, now)),
        sess_gen: Some(sess_gen),
        auth_at: Some(now),
        amr: Vec::new(),
        device: client.device.clone(),
        country: client.country.clone(),
        ended_at: None,
        org: None,
        method: None,
        expires_at: Some(now + crate::audit::KEEP_SECS),
    };
    (token, rec)
}

fn unauthorized(cause: &str) -> Error {
    Error {
        cause: Some(cause.to_owned()),
        ..Error::new(Reason::AUTHORIZATION_FAILED)
    }
}

fn parse(token: &str) -> Option<(&str, Vec<u8>)> {
    let (uid, secret) = token.split_once('.')?;
    let ok_uid = uid.len() == 32 && uid.bytes().all(|b| b.is_ascii_hexdigit());
    let secret = URL_SAFE_NO_PAD
        .decode(secret)
        .ok()
        .filter(|s| s.len() == 32)?;
    ok_uid.then_some((uid, secret))
}

/// Validates a bearer token. Round trips: 1 read of session and user together (during a root
/// rotation's overlap the batch also holds the session's key under the previous root), plus 1
/// write at most once a minute to move the idle deadline.
pub async fn authenticate(ciam: &Ciam, bearer: Option<&str>) -> Result<Session> {
    let token = bearer.ok_or_else(|| unauthorized("no bearer token"))?;
    let (uid, secret) = parse(token).ok_or_else(|| unauthorized("malformed token"))?;
    let mut keys = vec![profile_key(uid), session_key(ciam, uid, &secret)];
    if let Some(previous) = ciam.keys.previous() {
        keys.push(session_key_under(previous, uid, &secret));
    }
    let mut got = ciam.store.get_many(&keys).await?.into_iter();
    let user_item = got.next().flatten();
    // The session under the current root, else under the previous one: its own key is where
    // later writes (idle refresh, freshness, logout) go.
    let session_keys = keys.split_off(1);
    let found = session_keys
        .into_iter()
        .zip(got)
        .find_map(|(key, item)| item.map(|sess| (key, sess)));
    let (Some(user_item), Some((key, sess))) = (user_item, found) else {
        return Err(unauthorized("unknown or expired session"));
    };
    let user = User::from_item(&user_item).ok_or_else(|| unauthorized("bad user item"))?;
    let console_at = sess.n("consoleAt");
    let sess = SessionItem::from_item(&sess);
    if !user.usable() || sess.sess_gen != Some(user.sess_gen) {
        return Err(unauthorized("revoked session"));
    }
    let now = ciam.now();
    if !sess.is_live(now) {
        return Err(unauthorized("unknown or expired session"));
    }
    // The account is active today (the console's numbers): free once counted today, and free
    // for a session made today, whose sign-in counted it (on its request, or from the stream:
    // the user item's `activeDay` may lag the stream by a second, `numbers::tally`).
    if crate::numbers::Day::of(sess.created_at) < crate::numbers::Day::of(now) {
        crate::numbers::used(ciam, &user_item).await;
    }
    let created = sess.created_at;
    if now - sess.last_seen >= REFRESH_AFTER {
        let ops = vec![
            Update::Set("lastSeen".into(), now.into()),
            Update::Set("ends".into(), expiry(created, now).into()),
            Update::Expires(Some(created + crate::audit::KEEP_SECS)),
        ];
        ciam.store
            .update(&key, ops, Some(still_on()))
            .await
            .or_reason(unauthorized("session ended meanwhile"))?;
    }
    Ok(Session {
        user,
        key,
        created_at: created,
        auth_at: sess.auth_at.unwrap_or(created),
        amr: sess.amr,
        console_at,
        org: sess.org,
        method: sess.method,
    })
}

/// Records a console request on the session (`consoleAt`, the console's idle clock). Round
/// trips: 1.
pub async fn touch_console(ciam: &Ciam, s: &Session) -> Result<()> {
    let ops = vec![Update::Set("consoleAt".into(), ciam.now().into())];
    ciam.store
        .update(&s.key, ops, Some(still_on()))
        .await
        .or_reason(unauthorized("session ended meanwhile"))?;
    Ok(())
}

/// The condition of writes to a session: it exists and was not ended.
fn still_on() -> Cond {
    Cond::Exists.and(Cond::attr_not_exists("endedAt"))
}

/// Records a fresh proof of identity on the session, made by `amr`. Round trips: 1.
pub async fn mark_fresh(ciam: &Ciam, s: &Session, amr: &[&str]) -> Result<()> {
    // The proof adds its method to the session's: a session that signed in with a second factor
    // keeps it after a password proof (the console's gate reads it).
    let ops = vec![
        Update::Set("authAt".into(), ciam.now().into()),
        Update::Set(
            "amr".into(),
            ciam_store::Value::strings(amr_after(&s.amr, amr)),
        ),
    ];
    ciam.store
        .update(&s.key, ops, Some(still_on()))
        .await
        .or_reason(unauthorized("session ended meanwhile"))?;
    Ok(())
}

/// Ends the session of `user` at `key` (it stays as the sign-in's activity entry), with the
/// `session.ended` event (`signed_out`, its `sid`) when a partner could hear it. A session
/// already ended is left as it is, and announced no second time. Round trips: 1.
pub async fn end(ciam: &Ciam, user: &User, key: &Key) -> Result<()> {
    use crate::events::{self, Kind};
    let ops = vec![Update::Set("endedAt".into(), ciam.now().into())];
    let data = events::session_ended(Some(sid(key)), events::SIGNED_OUT);
    let event = events::op_for(ciam, user, Kind::SessionEnded, data);
    // Already gone or ended: nothing to end.
    events::update_with(ciam, key, ops, Some(still_on()), event)
        .await
        .won()?;
    Ok(())
}

/// Logout: the session ends on the server. Round trips: 1.
pub async fn revoke(ciam: &Ciam, s: &Session) -> Result<()> {
    end(ciam, &s.user, &s.key).await
}

/// The session's `sid` (OpenID Connect `sid`, the partner events' `sid`): stable for the life of
/// the session, the same on every engine, and revealing nothing (its sort key is already a keyed
/// hash): the first 128 bits of SHA-256 over the sort key, hex.
pub fn sid(key: &Key) -> String {
    use sha2::Digest;
    hex::encode(&sha2::Sha256::digest(key.sk.as_bytes())[..16])
}
