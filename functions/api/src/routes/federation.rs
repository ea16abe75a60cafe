//! The round trip of a federated sign-in, for whichever provider the row names
//! (`extract::RowProvider`; these handlers never name one): the browser leaves from `start`,
//! the provider sends it back to `callback`. Every answer is a redirect to the SPA's sign-in
//! screen, with `<provider>Code` (a linked subject), `<provider>Pending` (a new one: the phone
//! proof comes next) or `<provider>Error=<REASON>`; never a session token in a URL. Each
//! operation's published prose is its provider's (`staff.rs` for staff).
//!
//! And the shared routes of every provider that links (docs/federation-design.md §4.1, §5.1):
//! the login code's redemption (`login`), the phone proof (`prove_phone`), the sign-up of a new
//! subject (`register`), the providers offered (`providers`).

use crate::error::ApiError;
use crate::extract::{Client, Json, Lang, RowProvider};
use crate::federation::adapter;
use crate::reply::Reply;
use crate::sign_in::SignInReply;
use crate::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use ciam_core::federation::{self, links, phone, sign_up, Finished, ProviderId};
use ciam_core::staff;
use ciam_core::{Error, Reason};
use serde::{Deserialize, Serialize};

fn redirect(to: String) -> Response {
    (
        StatusCode::FOUND,
        [
            (header::LOCATION, to),
            (header::CACHE_CONTROL, "no-store".to_owned()),
            (header::REFERRER_POLICY, "no-referrer".to_owned()),
        ],
    )
        .into_response()
}

fn refused(p: ProviderId, lang: ciam_core::Lang, reason: &str, query: &str) -> Response {
    let param = format!("{}Error", p.name());
    redirect(staff::signin_url(lang, &param, reason, query))
}

/// Logs why the sign-in stopped, then goes back to sign-in with `<provider>Error=<REASON>`.
fn failed(p: ProviderId, lang: ciam_core::Lang, e: &Error, query: &str) -> Response {
    let cause = e.cause.as_deref().unwrap_or("");
    if e.reason.status() >= 500 {
        tracing::error!(provider = p.name(), reason = %e.reason, cause, "federated sign-in failed");
    } else {
        tracing::info!(provider = p.name(), reason = %e.reason, cause, "federated sign-in refused");
    }
    refused(p, lang, e.reason.code(), query)
}

/// The security centre's page, for a link started there (`routes::identities`):
/// `?<provider>Link=<token>` or `?<provider>LinkError=<REASON>`.
fn secure_url(lang: ciam_core::Lang, p: ProviderId, what: &str, value: &str) -> String {
    format!("/{}/personal/secure?{}{what}={value}", lang.tag(), p.name())
}

#[derive(Deserialize)]
pub struct StartQuery {
    lang: Option<String>,
    /// The SPA's query to return to (e.g. `appId=…&serviceUrl=…`), URL-encoded once.
    query: Option<String>,
    /// `base64url(SHA-256(bind))` of the browser's random `bind` (required).
    #[serde(rename = "bindHash")]
    bind_hash: Option<String>,
}

/// Leaves for the row's provider: stores the state and redirects to the provider's
/// authorization URL. Not configured (or no public URL to come back to):
/// `<provider>Error=UNAVAILABLE`. Round trips: 1 (the state), plus the provider's `ready`.
pub async fn start(
    State(s): State<AppState>,
    RowProvider(p): RowProvider,
    Lang(req_lang): Lang,
    headers: HeaderMap,
    q: Result<Query<StartQuery>, QueryRejection>,
) -> Response {
    let (lang, query, bind_hash) = match q {
        Ok(Query(q)) => (
            q.lang
                .as_deref()
                .and_then(ciam_core::Lang::parse_tag)
                .unwrap_or(req_lang),
            staff::return_query(q.query.as_deref().unwrap_or("")),
            q.bind_hash.unwrap_or_default(),
        ),
        Err(_) => (req_lang, String::new(), String::new()),
    };
    if !crate::federation::can_start(&s.ciam, p) {
        return refused(p, lang, "UNAVAILABLE", &query);
    }
    let at = federation::authorization_request(
        &s.ciam,
        adapter(p),
        lang,
        &query,
        &bind_hash,
        crate::federation::surface(&headers),
        None,
    );
    match at.await {
        Ok(url) => redirect(url),
        Err(e) => failed(p, lang, &e, &query),
    }
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    /// DingTalk's name for the code (`crate::federation::dingtalk::CODE_PARAM`).
    #[serde(rename = "authCode")]
    auth_code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    /// RFC 9207: the issuer of the answer, when the provider sends it.
    iss: Option<String>,
}

/// Back from the row's provider: consumes the state (single use), reads the provider's answer
/// into an identity, reaches the account and redirects with a one-time login code bound to the
/// state's bindHash; for a link started in the security centre, to the secure page with the
/// pending link (`<provider>Link`) or the refusal (`<provider>LinkError`). Round trips: 2 (state read and delete), the link rule's, 1 (the login
/// code); plus the provider's calls.
pub async fn callback(
    State(s): State<AppState>,
    RowProvider(p): RowProvider,
    Lang(req_lang): Lang,
    q: Result<Query<CallbackQuery>, QueryRejection>,
) -> Response {
    let Ok(Query(q)) = q else {
        return refused(p, req_lang, Reason::AUTHORIZATION_FAILED.code(), "");
    };
    let state = q.state.as_deref().unwrap_or("");
    let pending = match federation::take_state(&s.ciam, p, state).await {
        Ok(pending) => pending,
        Err(e) => return failed(p, req_lang, &e, ""),
    };
    let cb = federation::Callback {
        code: q.code.or(q.auth_code),
        error: q.error,
        iss: q.iss,
    };
    let linking = pending.link_for.is_some();
    let (param, value) = match federation::finish(&s.ciam, adapter(p), &pending, cb).await {
        Ok(Finished::Code(code)) => ("Code", code),
        Ok(Finished::Pending(token)) => ("Pending", token),
        Ok(Finished::Link(token)) => return redirect(secure_url(pending.lang, p, "Link", &token)),
        Err(e) if linking => {
            tracing::info!(provider = p.name(), reason = %e.reason, cause = e.cause.as_deref().unwrap_or(""), "link refused");
            return redirect(secure_url(pending.lang, p, "LinkError", e.reason.code()));
        }
        Err(e) => return failed(p, pending.lang, &e, &pending.query),
    };
    redirect(staff::signin_url(
        pending.lang,
        &format!("{}{param}", p.name()),
        &value,
        &pending.query,
    ))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct FederatedLogin {
    /// the provider's name (`wechat`, ...): the `<provider>Code` parameter's prefix
    provider: String,
    /// the `<provider>Code` of the callback
    code: String,
    /// the random value kept by the browser since `/auth/<provider>/start` (its SHA-256 was the
    /// bindHash)
    bind: String,
}

/// Federated sign-in: redeem the one-time login code
///
/// Redeems the `<provider>Code` of a provider's callback (a subject linked to an account) once
/// (60 s) with the `bind` whose SHA-256 was given to `/auth/<provider>/start` as bindHash.
/// Answers like POST /auth/login/password: a session, or NEED_TOTP_VERIFY with `challenge` when
/// two-factor is on (then POST /auth/login/totp). An unknown, expired, used or another
/// provider's code, another browser's bind (compared in constant time), or an account suspended
/// or deactivated since the callback is AUTHORIZATION_FAILED, and the code is used up either
/// way; a provider that does not sign in through links (staff: `/auth/login/staff`) is
/// INVALID_PARAMETER; a locked account VERIFICATION_ATTEMPT_CODE_LIMIT.
///
/// Reasons: AUTHORIZATION_FAILED, NEED_TOTP_VERIFY, VERIFICATION_ATTEMPT_CODE_LIMIT.
///
/// `POST /auth/login/federation {provider, code, bind}`. Round trips: 4 (code read, code
/// delete, user, session write), then the numbers' 2 (the day's activity read, the provider's
/// weekly counter).
pub async fn login(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<FederatedLogin>,
) -> Result<SignInReply, ApiError> {
    Ok(SignInReply(
        links::redeem(&s.ciam, &b.provider, &b.code, &b.bind, &client).await?,
    ))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ProvePhone {
    /// the `<provider>Pending` of the callback (`orgPending` too)
    pending: String,
    /// the browser's random value (its SHA-256 was the bindHash of the start)
    bind: String,
    /// a mainland-China mobile number
    phone: String,
    /// the 6-digit code sent to it with purpose `link` (POST /auth/identity)
    code: String,
}

/// What comes after a phone proof that reached no account.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct NextStep {
    /// `signUp`: POST /auth/federation/register completes the account.
    next: &'static str,
}

/// The phone proof's answer: 200 with the session (the phone's account is linked and signed
/// in), or 202 with the next step (sign-up).
pub enum PhoneReply {
    SignedIn(ciam_core::accounts::SignedIn),
    SignUp,
}

impl IntoResponse for PhoneReply {
    fn into_response(self) -> Response {
        match self {
            PhoneReply::SignedIn(s) => crate::sign_in::signed_in(s),
            PhoneReply::SignUp => Reply::<_, 202>(NextStep { next: "signUp" }).into_response(),
        }
    }
}

#[cfg(feature = "openapi")]
impl crate::doc::Outcome for PhoneReply {
    fn add(shape: &mut crate::doc::Shape, gens: &mut crate::doc::Generators) {
        shape.answers.push((
            200,
            gens.answer.subschema_for::<ciam_core::accounts::SignedIn>(),
        ));
        shape
            .answers
            .push((202, gens.answer.subschema_for::<NextStep>()));
    }
}

/// Federated sign-in: prove a mobile number for a new subject
///
/// A provider's subject with no link yet came back as `<provider>Pending`; this browser (its
/// `bind`) proves a mainland-China mobile number with Ciam's own code (purpose `link`, sent by
/// POST /auth/identity whether or not the number has an account). Never linked on anything the
/// provider said: only on this proof. The number's account, active and not suspended, is linked
/// to the subject and signed in (200: a session, or NEED_TOTP_VERIFY with `challenge` when
/// two-factor is on), the link written with its security activity entry (`identityLinked`) and
/// the partner event `user.identity_changed`, and the account's first address told; a suspended or deactivated account gets CODE_ERROR with the code used up
/// (the code sign-in's answer); a subject linked to an account meanwhile, or an account that
/// has this provider already, FEDERATION_LINK_EXISTS. No account has the number: 202
/// `{"next": "signUp"}` (POST /auth/federation/register). A pending identity unknown, expired,
/// used or started by another browser: AUTHORIZATION_FAILED (kept for its owner).
///
/// An `orgPending` (a person an organization's WeCom, DingTalk or Feishu connection vouched for
/// without a company mail) is redeemed under the connection's rules, read again (not `on` any
/// more: FEDERATION_NOT_PERMITTED; its organization not active: ORG_NOT_ACTIVE): the number's
/// account gets the company link (`FEDID#org:<connId>#<subject>`; a link of the same connection
/// to another subject is replaced, not counted again) and, not a member, joins with the
/// organization's default role (just in time `join`, with `organization.member_added` and
/// `member.join`) or is refused (`off`: FEDERATION_NOT_PERMITTED); an organization that
/// requires a second factor takes the identity provider's, else the account's own
/// (NEED_TOTP_VERIFY), else FEDERATION_NOT_PERMITTED. The session names the organization. No
/// account has the number: sign-up next only under `join` and, when a second factor is
/// required, the identity provider's; else FEDERATION_NOT_PERMITTED.
///
/// Reasons: AUTHORIZATION_FAILED, INVALID_PHONE, CODE_ERROR, CODE_KIND_ERROR,
/// VERIFYCODE_NOT_FOUND, VERIFICATION_CODE_LIMIT, VERIFICATION_ATTEMPT_CODE_LIMIT,
/// FEDERATION_LINK_EXISTS, NEED_TOTP_VERIFY, FEDERATION_NOT_PERMITTED, ORG_NOT_ACTIVE.
///
/// `POST /auth/federation/phone {pending, bind, phone, code}`. Round trips: 5 (pending, code,
/// the number's owner, the owner, one transaction: the link, the code's use, the pending
/// item's end, the session); to sign-up: 4. An `orgPending` adds 3 (the connection's look-up,
/// the connection, the organization), 1 (the membership), 1 or 2 (the account's company link).
pub async fn prove_phone(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<ProvePhone>,
) -> Result<PhoneReply, ApiError> {
    let proof = phone::prove_phone(&s.ciam, &b.pending, &b.bind, &b.phone, &b.code, &client);
    Ok(match proof.await? {
        links::PhoneProof::SignedIn(signed_in) => PhoneReply::SignedIn(signed_in),
        links::PhoneProof::SignUp => PhoneReply::SignUp,
    })
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FederatedRegister {
    /// the `<provider>Pending` whose phone was proven
    pending: String,
    /// the browser's random value (its SHA-256 was the bindHash of the start)
    bind: String,
    user_name: String,
    company: String,
    /// ISO 3166-1 alpha-2
    country: String,
    accept_terms: bool,
}

/// Federated sign-in: complete the sign-up of a new subject
///
/// The pending identity of this browser, its mobile number proven (POST
/// /auth/federation/phone answered `signUp`), becomes an account with the spec's sign-up
/// fields and no password (the ways in are the provider and the number's code): one
/// transaction creates the account, takes the number (PHONE_EXIST when taken meanwhile) and the
/// username (USERNAME_EXIST), links the subject (FEDERATION_LINK_EXISTS when linked meanwhile)
/// and ends the pending identity; then a session. A pending identity unknown, expired, used,
/// started by another browser or without a proven number: AUTHORIZATION_FAILED. An
/// `orgPending`'s new account gets the company link and joins the organization with its default
/// role in the same transaction (the connection read again: just in time `off`, not `on` any
/// more, or a required second factor the identity provider did not give:
/// FEDERATION_NOT_PERMITTED; the organization not active: ORG_NOT_ACTIVE); its session names
/// the organization.
///
/// Reasons: AUTHORIZATION_FAILED, USERNAME_EXIST, PHONE_EXIST, FEDERATION_LINK_EXISTS,
/// PHONE_MAINLAND_SERVICE_ONLY, FEDERATION_NOT_PERMITTED, ORG_NOT_ACTIVE.
///
/// `POST /auth/federation/register {pending, bind, userName, company, country, acceptTerms}`.
/// Round trips: 3 (pending, the transaction, the session; the numbers' new account side by
/// side); an `orgPending` adds 3 (the connection's look-up, the connection, the organization).
pub async fn register(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<FederatedRegister>,
) -> Result<SignInReply, ApiError> {
    let r = sign_up::FederatedSignUp {
        pending: b.pending,
        bind: b.bind,
        user_name: b.user_name,
        company: b.company,
        country: b.country,
        accept_terms: b.accept_terms,
    };
    Ok(SignInReply(sign_up::register(&s.ciam, r, &client).await?))
}

/// A provider a browser may start a federated sign-in with.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct OfferedProvider {
    /// Its name: `/auth/<name>/start`, and the `<name>Code`, `<name>Pending`, `<name>Error` of
    /// its way back.
    name: &'static str,
    /// The name the platform goes by here when it is not the provider's (`lark`: Feishu's
    /// international edition, `CIAM_FEISHU_REGION=lark`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    brand: Option<&'static str>,
}

/// The providers offered.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct OfferedProviders {
    providers: Vec<OfferedProvider>,
}

/// Federated sign-in: the providers offered
///
/// The providers that sign in through links (not staff, whose button the sign-in page draws
/// from its own settings) configured in this deployment, for the sign-in page's buttons, each
/// with its `brand` when the platform goes by another name here (Feishu as `lark`). Empty
/// until a provider of the list is configured.
///
/// Reasons: none.
///
/// `GET /auth/federation`. Round trips: 0.
pub async fn providers(State(s): State<AppState>) -> Reply<OfferedProviders> {
    let providers = crate::federation::offered(&s.ciam)
        .map(|p| OfferedProvider {
            name: p.name(),
            brand: adapter(p).brand(&s.ciam),
        })
        .collect();
    Reply(OfferedProviders { providers })
}
