//! Partner apps in the console (design §5, issue 21 "Partner apps"): the registry of
//! `crate::apps` read by any console role and changed by admins, each change with a reason and
//! an audit entry in the same transaction as the change (`app.create`, `app.update`,
//! `app.rotateSecret`, `app.retirePreviousSecret`, `app.delete`; target: the app id; detail: the
//! fields changed or the overlap's end, never a secret).
//!
//! Secret rotation with a chosen overlap: the new secret is shown once and the previous one
//! keeps working until `previousValidUntil` (between now and [`MAX_OVERLAP_SECS`] from now;
//! absent: `apps::PREVIOUS_SECRET_SECS`, 24 hours). A second rotation during an overlap makes
//! the current secret the previous one and ends the older one at once (one previous secret at
//! a time). Retiring the previous secret ends it at once.

use super::accounts::reason_of;
use super::audit::{AuditAction, Entry, RequestFacts};
use super::Operator;
use crate::apps::{self, app_key, find, AppDetail, AppFields, WithSecret, APPS_PK};
use crate::error::{Error, Result};
use crate::{Ciam, LostRace, Reason};
use ciam_store::{Cond, Query, TxOp, Update};
use serde::Serialize;

/// The longest overlap an admin may give a rotated-out secret.
pub const MAX_OVERLAP_SECS: i64 = 30 * 86_400;

/// What deleting an app ends, as the console spells it out (the read of one app answers it):
///
/// - `tickets`: no ticket is issued for it any more, and one issued but not yet redeemed can no
///   longer be redeemed (redeeming checks the app's secret);
/// - `oidcSignIn`: OpenID Connect authorization requests for it are refused, and codes not yet
///   exchanged can no longer be (the token endpoint checks the client);
/// - `embeddedSignIn`: its embedded sign-in may no longer be framed (`frame-ancestors 'none'`),
///   and a passkey ceremony started in its frame fails;
/// - `appList`: it leaves the public app list;
/// - `consents`: it leaves its users' list of allowed apps.
pub const DELETE_ENDS: [&str; 5] = [
    "tickets",
    "oidcSignIn",
    "embeddedSignIn",
    "appList",
    "consents",
];

/// What deleting an app does not end:
///
/// - `oidcAccessTokens`: access tokens already issued keep answering `userinfo` until they
///   expire (1 hour; they hang on the user's consent, not on the app);
/// - `recentApps`: the personal centre's recent apps keep the app's name and link (copied at
///   sign-in) until newer apps push it out.
pub const DELETE_KEEPS: [&str; 2] = ["oidcAccessTokens", "recentApps"];

/// `GET /admin/apps/{appId}`: the app and what deleting it would end.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OneApp {
    pub app: AppDetail,
    /// What deleting the app ends.
    #[cfg_attr(feature = "openapi", schemars(transform = items_of(&DELETE_ENDS)))]
    pub delete_ends: [&'static str; 5],
    /// What deleting the app does not end.
    #[cfg_attr(feature = "openapi", schemars(transform = items_of(&DELETE_KEEPS)))]
    pub delete_keeps: [&'static str; 2],
}

/// A list's schema whose items are `names` (docs/openapi.json).
#[cfg(feature = "openapi")]
fn items_of(names: &'static [&'static str]) -> impl Fn(&mut schemars::Schema) {
    move |schema| {
        schema.insert(
            "items".into(),
            serde_json::json!({"type": "string", "enum": names}),
        );
    }
}

/// `GET /admin/apps`: every registered app. Round trips: 1.
pub async fn list(ciam: &Ciam) -> Result<Vec<AppDetail>> {
    let now = ciam.now();
    let items = ciam
        .store
        .query(Query::partition(APPS_PK).prefix("APP#"))
        .await?;
    Ok(items
        .iter()
        .map(|i| apps::App::from_item(i).detail(now))
        .collect())
}

/// `GET /admin/apps/{appId}`. Round trips: 1.
pub async fn get(ciam: &Ciam, app_id: &str) -> Result<OneApp> {
    Ok(OneApp {
        app: find(ciam, app_id).await?.detail(ciam.now()),
        delete_ends: DELETE_ENDS,
        delete_keeps: DELETE_KEEPS,
    })
}

/// The names of the fields given, in the body's order.
fn given(f: &AppFields) -> Vec<&'static str> {
    [
        ("name", f.name.is_some()),
        ("description", f.description.is_some()),
        ("logo", f.logo.is_some()),
        ("privacyUrl", f.privacy_url.is_some()),
        ("serviceUrls", f.service_urls.is_some()),
        ("frameOrigins", f.frame_origins.is_some()),
        (
            "postLogoutRedirectUris",
            f.post_logout_redirect_uris.is_some(),
        ),
        ("backchannelLogoutUri", f.backchannel_logout_uri.is_some()),
        ("logoutUrl", f.logout_url.is_some()),
        ("scopes", f.scopes.is_some()),
        ("recommended", f.recommended.is_some()),
        ("ownerMail", f.owner_mail.is_some()),
    ]
    .into_iter()
    .filter_map(|(n, g)| g.then_some(n))
    .collect()
}

fn fields_detail(names: &[&str]) -> String {
    if names.is_empty() {
        "fields: -".to_owned()
    } else {
        format!("fields: {}", names.join(","))
    }
}

/// `POST /admin/apps`: registers an app (its secret in this answer only), audited in the same
/// transaction. Round trips: 1 transaction.
pub async fn create(
    ciam: &Ciam,
    op: &Operator,
    f: AppFields,
    reason: &str,
    req: &RequestFacts,
) -> Result<WithSecret> {
    let reason = reason_of(reason)?;
    let detail = fields_detail(&given(&f));
    apps::create_app(ciam, f, |app_id| {
        let e = Entry::new(
            ciam,
            op,
            AuditAction::AppCreate,
            app_id,
            Some(&reason),
            Some(detail),
            req,
        );
        Some(e.put())
    })
    .await
}

/// `PATCH /admin/apps/{appId}`: changes the given fields, audited (the fields whose value
/// changed) in the same transaction. A body without fields writes nothing. Round trips: 1
/// read, 1 transaction, 1 read of the result.
pub async fn update(
    ciam: &Ciam,
    op: &Operator,
    app_id: &str,
    f: AppFields,
    reason: &str,
    req: &RequestFacts,
) -> Result<AppDetail> {
    let reason = reason_of(reason)?;
    let f = apps::check(f, false)?;
    let change = apps::plan(ciam, app_id, f, None).await?;
    let detail = fields_detail(&change.changed);
    let e = Entry::new(
        ciam,
        op,
        AuditAction::AppUpdate,
        app_id,
        Some(&reason),
        Some(detail),
        req,
    );
    Ok(apps::apply(ciam, change, Some(e.put())).await?.app)
}

/// The end of a rotated-out secret: `previous_valid_until` if given (after now, at most
/// [`MAX_OVERLAP_SECS`] away, else INVALID_PARAMETER on `previousValidUntil`), else 24 hours.
pub fn overlap_end(now: i64, previous_valid_until: Option<i64>) -> Result<i64> {
    match previous_valid_until {
        None => Ok(now + apps::PREVIOUS_SECRET_SECS),
        Some(t) if t > now && t <= now + MAX_OVERLAP_SECS => Ok(t),
        Some(_) => Err(Error::field(
            Reason::INVALID_PARAMETER,
            "previousValidUntil",
            "旧密钥的截止时间应在现在之后的 30 天内",
            "The old secret's end is after now and at most 30 days away",
        )),
    }
}

/// `POST /admin/apps/{appId}/secret`: a new secret (shown once); the previous one works until
/// the overlap's end. Audited (the end, ISO 8601) in the same transaction. Round trips: 1 read,
/// 1 transaction, 1 read of the result.
pub async fn rotate(
    ciam: &Ciam,
    op: &Operator,
    app_id: &str,
    previous_valid_until: Option<i64>,
    reason: &str,
    req: &RequestFacts,
) -> Result<WithSecret> {
    let reason = reason_of(reason)?;
    let until = overlap_end(ciam.now(), previous_valid_until)?;
    let change = apps::plan(ciam, app_id, AppFields::default(), Some(until)).await?;
    let detail = if change.current.secret_hash.is_some() {
        format!("previous secret valid until {}", super::export::iso(until))
    } else {
        "no previous secret".to_owned()
    };
    let e = Entry::new(
        ciam,
        op,
        AuditAction::AppRotateSecret,
        app_id,
        Some(&reason),
        Some(detail),
        req,
    );
    apps::apply(ciam, change, Some(e.put())).await
}

/// `POST /admin/apps/{appId}/retire-previous-secret`: the previous secret stops working at once
/// (nothing to end is no error). Audited in the same transaction. Round trips: 1 read,
/// 1 transaction, 1 read of the result.
pub async fn retire_previous(
    ciam: &Ciam,
    op: &Operator,
    app_id: &str,
    reason: &str,
    req: &RequestFacts,
) -> Result<AppDetail> {
    let reason = reason_of(reason)?;
    let now = ciam.now();
    let current = find(ciam, app_id).await?;
    let detail = match current.previous_live_until(now) {
        Some(t) => format!(
            "previous secret ended (was valid until {})",
            super::export::iso(t)
        ),
        None => "no previous secret running".to_owned(),
    };
    let e = Entry::new(
        ciam,
        op,
        AuditAction::AppRetirePreviousSecret,
        app_id,
        Some(&reason),
        Some(detail),
        req,
    );
    let tx = vec![
        TxOp::Update {
            key: app_key(app_id),
            ops: vec![
                Update::Remove("prevSecretHash".into()),
                Update::Remove("prevSecretUntil".into()),
            ],
            cond: Some(Cond::Exists),
        },
        e.put(),
    ];
    match ciam.store.transact(tx).await {
        Ok(()) => {}
        Err(e) if e.condition_failed_at(0) => return Err(Reason::APPID_NOT_FOUND.into()),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE)?,
    }
    Ok(find(ciam, app_id).await?.detail(ciam.now()))
}

/// `DELETE /admin/apps/{appId}`: the app and its name items, audited in the same transaction.
/// Round trips: 1 read, 1 transaction.
pub async fn delete(
    ciam: &Ciam,
    op: &Operator,
    app_id: &str,
    reason: &str,
    req: &RequestFacts,
) -> Result<()> {
    let reason = reason_of(reason)?;
    let e = Entry::new(
        ciam,
        op,
        AuditAction::AppDelete,
        app_id,
        Some(&reason),
        None,
        req,
    );
    apps::delete_app(ciam, app_id, Some(e.put())).await
}
