//! Linked ways in, in the security centre (docs/federation-design.md §4.3): the account's
//! linked identities, adding one (a fresh proof, the provider's round trip, the confirmation
//! from the same session and browser) and removing one (never the last way in). The rules
//! are `ciam_core::federation::identities`'; the console's unlink is `admin_unlink.rs`.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Json, Lang};
use crate::federation::adapter;
use crate::reply::{done, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use ciam_core::federation::identities::{self, Linked};
use ciam_core::federation::{self, ProviderId};
use serde::{Deserialize, Serialize};

/// The company sign-in of an internal staff account: shown, never removable here.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct StaffLink {
    /// Always true: the company's identity provider manages it.
    linked: bool,
}

/// The account's linked identities and what it may link.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct Identities {
    /// One per provider, oldest first by provider name.
    identities: Vec<Linked>,
    /// Present on an internal staff account (company sign-in).
    #[serde(skip_serializing_if = "Option::is_none")]
    staff: Option<StaffLink>,
    /// The providers configured here that the account has not linked (`POST
    /// /auth/identities/link`).
    available: Vec<&'static str>,
}

/// Linked identities
///
/// The account's linked identities (`provider`, the name the provider gave, when it was
/// linked, the last day it signed in; never the provider's id for the person); a company's
/// sign-in (`org:<connId>`) with its organization's and connection's names (the company's link:
/// not removable here); `staff: {linked: true}` for an internal staff account (the company
/// manages it: not removable here); the configured providers not linked yet, to offer.
///
/// Reasons: none.
///
/// `GET /auth/identities`. Round trips: 2 (authentication, one query); 3 with a company's
/// sign-in (its organization's and connection's names, read together).
pub async fn list(
    State(s): State<AppState>,
    Authed(sess): Authed,
) -> Result<Reply<Identities>, ApiError> {
    let identities = identities::list(&s.ciam, &sess.user.id).await?;
    let available = crate::federation::offered(&s.ciam)
        .map(ProviderId::name)
        .filter(|n| !identities.iter().any(|l| l.provider == *n))
        .collect();
    Ok(Reply(Identities {
        identities,
        staff: sess
            .user
            .eiam_uid
            .is_some()
            .then_some(StaffLink { linked: true }),
        available,
    }))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LinkStart {
    /// the provider's name (`wechat`, ...)
    provider: String,
    /// `base64url(SHA-256(bind))` of the browser's random `bind`, kept for the confirmation
    bind_hash: String,
}

/// Where the browser goes.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct LinkUrl {
    /// The provider's authorization URL; it sends the browser back to
    /// `/{lang}/personal/secure?<provider>Link=<token>` (or `<provider>LinkError=<REASON>`).
    url: String,
}

/// Link a provider's account: start
///
/// Needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Stores a state bound to this
/// session and the browser's bindHash (10 minutes) and answers the provider's URL; the
/// provider sends the browser back to the secure page with `<provider>Link=<token>` (then POST
/// /auth/identities/confirm) or `<provider>LinkError=<REASON>` (a subject linked to an account
/// already: FEDERATION_LINK_EXISTS; WeChat's preview mode: FEDERATION_SNAPSHOT_USER; declined:
/// FEDERATION_CANCELLED). A provider that does not link (staff) or is unknown:
/// INVALID_PARAMETER; not configured here: SERVICE_UNAVAILABLE; this provider linked already:
/// FEDERATION_LINK_EXISTS.
///
/// Reasons: REAUTH_REQUIRED, FEDERATION_LINK_EXISTS.
///
/// `POST /auth/identities/link {provider, bindHash}`. Round trips: 3 (authentication, the
/// account's link of that provider, the state), plus the provider's `ready`.
pub async fn start(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
    headers: HeaderMap,
    Json(b): Json<LinkStart>,
) -> Result<Reply<LinkUrl>, ApiError> {
    let (p, link_for) = identities::begin(&s.ciam, &sess, &b.provider).await?;
    if !crate::federation::can_start(&s.ciam, p) {
        return Err(ciam_core::Error {
            cause: Some(format!("{} is not configured", p.name())),
            ..ciam_core::Error::new(ciam_core::Reason::SERVICE_UNAVAILABLE)
        }
        .into());
    }
    let url = federation::authorization_request(
        &s.ciam,
        adapter(p),
        lang,
        "",
        &b.bind_hash,
        crate::federation::surface(&headers),
        Some(&link_for),
    )
    .await?;
    Ok(Reply(LinkUrl { url }))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LinkConfirm {
    /// the provider's name
    provider: String,
    /// the `<provider>Link` the secure page was sent back with
    token: String,
    /// the browser's random value (its SHA-256 was the bindHash of the start)
    bind: String,
}

/// Link a provider's account: confirm
///
/// Makes the link the provider's round trip brought back (`<provider>Link`), from the session
/// that started it and the browser whose bind it holds (else AUTHORIZATION_FAILED, the pending
/// link kept; 15 minutes). One transaction links the subject, writes the activity entry
/// `identityLinked` and, for an account with a consent, the partner event
/// `user.identity_changed` `{provider, linked: true}`; the account is told by a notice. The
/// subject linked to an account meanwhile, or this provider on the account already:
/// FEDERATION_LINK_EXISTS.
///
/// Reasons: FEDERATION_LINK_EXISTS.
///
/// `POST /auth/identities/confirm {provider, token, bind}`. Round trips: 3 (authentication, the
/// pending link, the transaction), then the notice.
pub async fn confirm(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Lang(lang): Lang,
    Json(b): Json<LinkConfirm>,
) -> Result<Reply<Done>, ApiError> {
    let c = identities::confirm(
        &s.ciam,
        &sess,
        &b.provider,
        &b.token,
        &b.bind,
        &client,
        lang,
    );
    c.await?;
    Ok(done())
}

/// Remove a linked identity
///
/// Needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Removes the account's link to
/// the provider, unless it is the last way in: with no password, mail, phone, passkey, other
/// link or company sign-in left, FEDERATION_LAST_WAY_IN. One transaction with the activity
/// entry `identityUnlinked` and, for an account with a consent, the partner event
/// `user.identity_changed` `{provider, linked: false}`; the account is told by a notice. A
/// provider the account has not linked, staff or a company's sign-in (`org:<connId>`, both
/// managed by the company): INVALID_PARAMETER.
///
/// Reasons: REAUTH_REQUIRED, FEDERATION_LAST_WAY_IN, INVALID_PARAMETER.
///
/// `DELETE /auth/identities/{provider}`. Round trips: 3 (authentication, the account's link,
/// the transaction), then the notice.
pub async fn remove(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Lang(lang): Lang,
    Path(provider): Path<String>,
) -> Result<Reply<Done>, ApiError> {
    identities::unlink(&s.ciam, &sess, &provider, &client, lang).await?;
    Ok(done())
}
