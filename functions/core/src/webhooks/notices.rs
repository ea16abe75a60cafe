//! Sending the sign-out to partner apps (issue 23, docs/events-design.md §4): the logout notices
//! ride the webhook pipeline (the same outbox, queue, SSRF guard, backoff and log), but go to
//! apps by the sessions that signed in there (`app_sessions`), not by consent and endpoint
//! subscription: an app with a `backchannelLogoutUri` and no webhook endpoint still hears.
//!
//! - **Fan-out** ([`fan_out`]): a `session.ended` event with a `sid` ends that session; one
//!   without (`all_sessions`, `support`) and a `user.deactivated` end every session of the user
//!   that signed in to an app until the event (records written at or before it), except the one
//!   a password change keeps (`keepSid` on the event item, never in a payload). One delivery per
//!   (ended session, app, registered URL), to the pseudo endpoint `backchannel.<appId>` or
//!   `logoutUrl.<appId>`; its `event_id` is `<eventId>.<sid>` and its `body` the `sid` (the
//!   message is built at each attempt). The records are deleted once the deliveries are queued.
//! - **An attempt** ([`attempt`]): reads the app (its URL now; an app gone or that dropped the URL
//!   is not told), checks the URL with the SSRF guard (the lookup within the attempt's 5 s), and
//!   only then signs a **fresh** logout token (`oidc::logout::logout_token`: a new `jti`, `iat`
//!   now, 2 minutes of life; never for a refused address), POSTs it form-encoded, and logs the
//!   attempt in the app's delivery log under the pseudo endpoint (`GET
//!   /app/{appId}/webhooks/backchannel/deliveries`). A 200 or 204 is delivered; anything else is
//!   retried on the webhooks' backoff within [`WINDOW_SECS`]. No endpoint state: these URLs are
//!   the app's registration, never disabled by failures.

use super::guard::Resolver;
use super::log::{self, Entry};
use super::outbound::{self, receiver_endpoint, Outbound, Step, Transport};
use crate::app_sessions::{self, Record, ENDS_SESSIONS, KEEP_SID};
use crate::apps::{app_key, App};
use crate::error::Result;
use crate::events::{Event, Kind};
use crate::oidc::logout::{self, Receiver};
use crate::Ciam;
use ciam_store::{Item, Key};

/// How long after it is queued a notice is retried (attempts at 0, 5 s, 35 s, 2 min 35 s and
/// 12 min 35 s): a fresh token is signed at each, so the window is not the token's life.
pub const WINDOW_SECS: i64 = 3600;

/// The records of the sessions the event item `item` ended (none for other events).
/// Round trips: 0 or 1 query.
pub async fn ended(ciam: &Ciam, item: &Item) -> Result<Vec<Record>> {
    let Some(event) = Event::from_item(item) else {
        return Ok(Vec::new());
    };
    let sid = match event.kind {
        Kind::SessionEnded => event.data.get("sid").and_then(|s| s.as_str()),
        Kind::Deactivated => None,
        // A two-factor change or the support desk's identity replacement: its change ended the
        // sessions (all, or all but `keepSid`).
        _ if item.bool(ENDS_SESSIONS) == Some(true) => None,
        _ => return Ok(Vec::new()),
    };
    let records = app_sessions::records(ciam, &event.user_id, sid).await?;
    if sid.is_some() {
        return Ok(records);
    }
    let keep = item.s(KEEP_SID);
    Ok(records
        .into_iter()
        .filter(|r| r.at <= event.at && keep != Some(r.sid.as_str()))
        .collect())
}

/// The notices of the event item `item` (see the module documentation) and the records to
/// delete once they are queued. Round trips: 0, or 1 query and 1 batch read (the apps).
pub async fn fan_out(ciam: &Ciam, item: &Item) -> Result<(Vec<Outbound>, Vec<Key>)> {
    let records = ended(ciam, item).await?;
    let Some(event) = Event::from_item(item).filter(|_| !records.is_empty()) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let mut ids: Vec<&str> = records.iter().map(|r| r.app_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    let keys: Vec<Key> = ids.iter().map(|id| app_key(id)).collect();
    let apps: Vec<App> = ciam
        .store
        .get_many(&keys)
        .await?
        .iter()
        .flatten()
        .map(App::from_item)
        .collect();
    let now = ciam.now();
    let mut out = Vec::new();
    for r in &records {
        let Some(app) = apps.iter().find(|a| a.app_id == r.app_id) else {
            continue;
        };
        for receiver in Receiver::ALL {
            if receiver.url(app).is_some() {
                out.push(Outbound {
                    app_id: app.app_id.clone(),
                    endpoint_id: receiver_endpoint(receiver, &app.app_id),
                    user_id: event.user_id.clone(),
                    event_id: format!("{}.{}", event.id, r.sid),
                    event_sk: event.key().sk,
                    kind: Kind::SessionEnded.name().to_owned(),
                    body: r.sid.clone(),
                    event_at: event.at,
                    since: now,
                    attempts: 0,
                });
            }
        }
    }
    Ok((out, records.into_iter().map(|r| r.key).collect()))
}

/// One attempt of the notice `ob` (to `receiver` of `app_id`). Round trips: 1 read (the app),
/// 1 write (the log), and one signature.
pub async fn attempt(
    ciam: &Ciam,
    transport: &dyn Transport,
    resolver: &dyn Resolver,
    ob: &Outbound,
    receiver: Receiver,
    app_id: &str,
) -> Result<Step> {
    let attempt = ob.attempts + 1;
    let now = ciam.now();
    let mut entry = Entry::new(ob, attempt, now);
    let app = ciam
        .store
        .get(&app_key(app_id))
        .await?
        .map(|i| App::from_item(&i));
    let url = app
        .as_ref()
        .and_then(|a| receiver.url(a))
        .map(str::to_owned);
    let Some(url) = url else {
        entry.outcome = "failed".into();
        entry.error = Some(format!("the app no longer registers a {}", receiver.name()));
        log::write(ciam, &entry).await?;
        return Ok(Step::Failed);
    };
    // The address is checked (its lookup within the attempt's budget) before anything is
    // signed: a refused or unresolvable address never gets a logout token made for it.
    let answer = match outbound::check_url(ciam, resolver, &url).await {
        Err(refused) => refused,
        Ok((target, started)) => {
            let jwt = logout::logout_token(ciam, app_id, &ob.user_id, &ob.body).await?;
            let body = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("logout_token", &jwt)
                .finish();
            let headers = [("content-type", logout::FORM.to_owned())];
            outbound::post_checked(transport, &target, &headers, &body, started).await
        }
    };
    let code = log::observe(&mut entry, &answer);
    let step = if code == 200 || code == 204 {
        Step::Delivered
    } else {
        match outbound::next_attempt_within(ob.since, attempt, now, WINDOW_SECS) {
            Some(at) => Step::RetryAt(at),
            None => Step::Failed,
        }
    };
    if code != 0 && !matches!(step, Step::Delivered) && entry.error.is_none() {
        entry.error = Some("only 200 or 204 is a delivery".into());
    }
    entry.outcome = log::outcome(&step).into();
    log::write(ciam, &entry).await?;
    Ok(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_is_retried_for_an_hour() {
        let t0 = 1_000_000;
        let mut at = t0;
        let mut tries = vec![at];
        let mut n = 1;
        while let Some(next) = outbound::next_attempt_within(t0, n, at, WINDOW_SECS) {
            at = next;
            tries.push(at);
            n += 1;
        }
        assert_eq!(
            tries.iter().map(|t| t - t0).collect::<Vec<_>>(),
            [0, 5, 35, 155, 755]
        );
    }
}
