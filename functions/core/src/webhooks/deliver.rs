//! Fan-out of one event and one delivery attempt: core functions taking the ports, so that
//! `ciam serve`'s worker (`queue`) and, later, the AWS functions call the same code.
//!
//! Fan-out: who hears the event (`consents::audience`: the deactivation's recorded audience, the
//! revoked app, or the user's consents, one Query), for each of those apps
//! (for `consent.revoked`: the app revoked, whose consent the change deleted) its enabled
//! endpoints subscribed to the kind (one Query per app), the body = `Event::payload_for` with
//! that app's consented scopes. One [`Outbound`] per (endpoint, event).
//!
//! An attempt: the SSRF guard (`guard::check`), the signed POST through the [`Transport`] port
//! pinned to the checked address (no redirects, 5 s, at most 1 KB of the answer read), a
//! delivery log entry, and the endpoint's state: a 2xx is delivered; a 410 disables the
//! endpoint at once; anything else is retried after 5 s, 30 s, 2 min, 10 min, 1 h, then every
//! 2 h while within 24 h of the first try, then failed. An endpoint failing without a success
//! for 3 days is disabled (`disabledAt`).

use super::guard::Resolver;
use super::log::{self, Entry};
use super::outbound::{self, post_guarded, Outbound, Step, Transport};
use super::{endpoints, notices, sign, Endpoint};
use crate::error::Result;
use crate::events::Event;
use crate::Ciam;
use ciam_store::{Cond, Update};

/// How long an endpoint may fail without a success before it is disabled.
pub const DISABLE_AFTER_SECS: i64 = 3 * 86_400;

/// The deliveries of `event` to the endpoints of the apps that hear it. Round trips: 1 + one
/// per consented app.
pub async fn fan_out(ciam: &Ciam, event: &Event) -> Result<Vec<Outbound>> {
    // Who hears it: the deactivation's recorded audience (its consents are deleted with the
    // account), the revoked app, or the user's consents now (`consents::audience`).
    let mut apps: Vec<(String, Vec<String>)> = crate::consents::audience(ciam, event)
        .await?
        .into_iter()
        .map(|c| (c.app_id, c.scopes))
        .collect();
    apps.dedup_by(|a, b| a.0 == b.0);
    let mut out = Vec::new();
    for (app_id, scopes) in apps {
        let Some(body) = event.payload_for(&app_id, &scopes) else {
            continue;
        };
        for e in endpoints::of_app(ciam, &app_id).await? {
            if e.enabled() && e.subscribed(event.kind) {
                out.push(outbound(&e, event, body.to_string(), ciam.now()));
            }
        }
    }
    Ok(out)
}

pub(crate) fn outbound(e: &Endpoint, event: &Event, body: String, now: i64) -> Outbound {
    Outbound {
        app_id: e.app_id.clone(),
        endpoint_id: e.endpoint_id.clone(),
        user_id: event.subject(),
        event_id: event.id.clone(),
        event_sk: event.key().sk,
        kind: event.kind.name().to_owned(),
        body,
        event_at: event.at,
        since: now,
        attempts: 0,
    }
}

/// One attempt of `ob`: checks, sends, logs, and updates the endpoint (a logout notice's:
/// `notices::attempt`). `local_http`: the
/// local-http mode of `ciam serve`. Round trips: 1 read, 1 or 2 writes.
pub async fn attempt(
    ciam: &Ciam,
    transport: &dyn Transport,
    resolver: &dyn Resolver,
    ob: &Outbound,
) -> Result<Step> {
    Ok(attempt_state(ciam, transport, resolver, ob).await?.0)
}

/// [`attempt`], and since when the endpoint has failed every delivery (None: it has not, or a
/// logout notice's URL, which has no state), for the delivery function's metrics.
pub async fn attempt_state(
    ciam: &Ciam,
    transport: &dyn Transport,
    resolver: &dyn Resolver,
    ob: &Outbound,
) -> Result<(Step, Option<i64>)> {
    if let Some((receiver, app_id)) = outbound::receiver_of(&ob.endpoint_id) {
        let step = notices::attempt(ciam, transport, resolver, ob, receiver, app_id).await?;
        return Ok((step, None));
    }
    let e = match endpoints::find(ciam, &ob.app_id, &ob.endpoint_id).await {
        Ok(e) => e,
        Err(err) if err.reason == crate::Reason::WEBHOOK_NOT_FOUND => {
            return Ok((Step::Failed, None))
        }
        Err(err) => return Err(err),
    };
    let attempt = ob.attempts + 1;
    let now = ciam.now();
    let mut entry = Entry::new(ob, attempt, now);
    if !e.enabled() {
        entry.outcome = "failed".into();
        entry.error = Some("endpoint disabled".into());
        log::write(ciam, &entry).await?;
        return Ok((Step::Failed, None));
    }
    let signed = || {
        let secrets = endpoints::open_secrets(ciam, &e)?;
        Ok(sign::headers(&secrets, &ob.event_id, now, &ob.body))
    };
    let answer = post_guarded(ciam, transport, resolver, &e.url, signed, &ob.body).await?;
    let code = log::observe(&mut entry, &answer);
    let ok = (200..300).contains(&code);
    let mut ops = Vec::new();
    let mut disabling = false;
    let failing = (!ok).then(|| e.failing_since.unwrap_or(now));
    let step = if ok {
        ops.push(Update::Set("lastSuccessAt".into(), now.into()));
        ops.push(Update::Remove("failingSince".into()));
        Step::Delivered
    } else {
        let since = e.failing_since.unwrap_or(now);
        if e.failing_since.is_none() {
            ops.push(Update::Set("failingSince".into(), now.into()));
        }
        if code == 410 || now - since >= DISABLE_AFTER_SECS {
            ops.push(Update::Set("disabledAt".into(), now.into()));
            disabling = true;
            entry.error = Some(if code == 410 {
                "410 Gone: endpoint disabled".into()
            } else {
                "failing for 3 days: endpoint disabled".into()
            });
            tracing::warn!(app = %e.app_id, endpoint = %e.endpoint_id, "webhooks: endpoint disabled");
            Step::Failed
        } else {
            match outbound::next_attempt(ob.since, attempt, now) {
                Some(at) => Step::RetryAt(at),
                None => Step::Failed,
            }
        }
    };
    entry.outcome = log::outcome(&step).into();
    log::write(ciam, &entry).await?;
    // A root rotation's overlap: secrets sealed under the previous root ride in this write.
    let mut conds = vec![Cond::Exists];
    match endpoints::reseal(ciam, &e) {
        Ok(Some((more, unchanged))) => {
            ops.extend(more);
            conds.extend(unchanged);
        }
        Ok(None) => {}
        Err(err) => tracing::warn!(cause = %err, "webhooks: cannot seal a secret again"),
    }
    if !ops.is_empty() {
        // Only the attempt that disables it tells the owner (two attempts at once disable it
        // once: the second finds `disabledAt` set).
        if disabling {
            conds.push(Cond::AttrNotExists("disabledAt".into()));
        }
        let cond = match conds.len() {
            1 => Cond::Exists,
            _ => Cond::And(conds),
        };
        match ciam.store.update(&e.key(), ops, Some(cond)).await {
            Ok(_) if disabling => super::owner::tell_disabled(ciam, &e, code == 410).await,
            Ok(_) | Err(ciam_store::StoreError::ConditionFailed) => {}
            Err(err) => return Err(err.into()),
        }
    }
    Ok((step, failing))
}
