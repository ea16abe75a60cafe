//! The staff sign-in's round trip through the company identity provider: `start` (the state and
//! the authorization request) and the callback (`take_state`, then `finish`).

use super::{
    check_bind_hash, check_id_token, issue_login_code, link, pkce_challenge, redirect_uri,
    return_query, staff_mail, state_key, take, token, StaffClaims, StaffIdp, STATE_TTL,
};
use crate::error::{Error, Result};
use crate::{Ciam, Lang, Reason};
use ciam_store::{Cond, Item};

/// The company identity provider's HTTP side, as the staff flow uses it (`ciam_api::federation`
/// speaks to the real one). `Metadata` is what its discovery document says.
#[async_trait::async_trait]
pub trait IdentityProvider: Send + Sync {
    type Metadata: Send + Sync;

    /// Its discovery document: SERVICE_UNAVAILABLE when unreachable, inconsistent or not https.
    async fn discover(&self, idp: &StaffIdp) -> Result<Self::Metadata>;

    /// The authorization request's URL (authorization code flow, PKCE S256) for `started`.
    fn authorization_url(
        &self,
        meta: &Self::Metadata,
        idp: &StaffIdp,
        redirect_uri: &str,
        started: &Started,
    ) -> Result<String>;

    /// The token request with the PKCE verifier: a refusal by the provider (an invalid or
    /// replayed code) is AUTHORIZATION_FAILED, anything else SERVICE_UNAVAILABLE.
    async fn exchange(
        &self,
        meta: &Self::Metadata,
        idp: &StaffIdp,
        redirect_uri: &str,
        code: &str,
        verifier: &str,
    ) -> Result<IdpTokens>;

    /// The userinfo claims, whose `sub` must be `sub`; none when the provider has no userinfo
    /// endpoint.
    async fn userinfo(
        &self,
        meta: &Self::Metadata,
        access_token: &str,
        sub: &str,
    ) -> Result<StaffClaims>;
}

/// The token endpoint's answer.
#[derive(Debug, serde::Deserialize)]
pub struct IdpTokens {
    pub id_token: String,
    pub access_token: Option<String>,
}

/// Where the browser goes to sign in at the identity provider for a new staff sign-in: checks
/// `bind_hash`, reads the provider's discovery document, then stores the state (`start`).
/// Round trips: 1 (the state), plus the discovery document when not cached.
pub async fn authorization_request<P: IdentityProvider>(
    ciam: &Ciam,
    provider: &P,
    idp: &StaffIdp,
    lang: Lang,
    query: &str,
    bind_hash: &str,
) -> Result<String> {
    check_bind_hash(bind_hash)?;
    let meta = provider.discover(idp).await?;
    let started = start(ciam, lang, query, bind_hash).await?;
    provider.authorization_url(&meta, idp, &redirect_uri(ciam), &started)
}

/// What the identity provider's redirect back brought (besides the state).
#[derive(Debug, Default)]
pub struct Callback {
    pub code: Option<String>,
    pub error: Option<String>,
    /// RFC 9207: the issuer of the answer, when the provider sends it.
    pub iss: Option<String>,
}

/// The callback after its state was taken (`take_state`): exchanges the code, checks the
/// id_token (and reads userinfo when it lacks a verified mail), links or creates the internal
/// account and answers a one-time login code bound to the state's `bindHash`.
/// Round trips: 2 or 3 to link (mail, user, maybe a write), 1 (the login code); plus the token
/// request (and userinfo when the id_token has no mail).
pub async fn finish<P: IdentityProvider>(
    ciam: &Ciam,
    provider: &P,
    pending: &Pending,
    cb: Callback,
) -> Result<String> {
    let idp = ciam
        .config
        .staff_idp
        .as_ref()
        .ok_or_else(|| Error::new(Reason::SERVICE_UNAVAILABLE))?;
    let denied = |cause: String| Error {
        cause: Some(cause),
        ..Error::new(Reason::AUTHORIZATION_FAILED)
    };
    if let Some(err) = cb.error {
        return Err(denied(format!("the identity provider answered {err}")));
    }
    if cb.iss.as_deref().is_some_and(|iss| iss != idp.issuer) {
        return Err(denied("the answer names another issuer".into()));
    }
    let code = cb
        .code
        .filter(|c| !c.is_empty())
        .ok_or_else(|| denied("no code".into()))?;
    let meta = provider.discover(idp).await?;
    let redirect_uri = redirect_uri(ciam);
    let tokens = provider
        .exchange(&meta, idp, &redirect_uri, &code, &pending.verifier)
        .await?;
    let mut claims = check_id_token(ciam, idp, &tokens.id_token, &pending.nonce)?;
    // The mail and its verification come as a pair: from the id_token, else from userinfo.
    if claims.email.is_none() || claims.email_verified != Some(true) {
        if let Some(at) = &tokens.access_token {
            let more = provider.userinfo(&meta, at, &claims.sub).await?;
            if more.email.is_some() {
                claims.email = more.email;
                claims.email_verified = more.email_verified;
            }
            claims.name = claims.name.or(more.name);
        }
    }
    let mail = staff_mail(ciam, &claims)?;
    let user_id = link(ciam, &claims, &mail).await?;
    let mfa = claims.did_mfa(&ciam.config.staff_mfa_acr);
    issue_login_code(ciam, &user_id, &pending.bind_hash, mfa).await
}

/// A staff sign-in sent to the identity provider: what goes into the authorization request.
#[derive(Debug)]
pub struct Started {
    pub state: String,
    pub nonce: String,
    pub code_challenge: String,
}

/// Stores the state of a new staff sign-in (10 minutes), bound to the browser's `bind_hash`.
/// Round trips: 1.
pub async fn start(ciam: &Ciam, lang: Lang, query: &str, bind_hash: &str) -> Result<Started> {
    check_bind_hash(bind_hash)?;
    let state = token(ciam);
    let nonce = token(ciam);
    let verifier = token(ciam);
    let item = Item::new(state_key(ciam, &state))
        .with("nonce", nonce.as_str())
        .with("verifier", verifier.as_str())
        .with("lang", lang.tag())
        .with("query", return_query(query))
        .with("bindHash", bind_hash)
        .expires(ciam.now() + STATE_TTL);
    ciam.store.put(item, Some(Cond::NotExists)).await?;
    Ok(Started {
        state,
        nonce,
        code_challenge: pkce_challenge(&verifier),
    })
}

/// A staff sign-in coming back from the identity provider.
#[derive(Debug)]
pub struct Pending {
    pub nonce: String,
    pub verifier: String,
    pub lang: Lang,
    /// Already safe for [`signin_url`].
    pub query: String,
    /// The hash of the `bind` of the browser that started the sign-in.
    pub bind_hash: String,
}

/// Consumes the state: a second callback with it (a replay), an unknown or an expired one is
/// AUTHORIZATION_FAILED. Round trips: 2 (read, conditional delete).
pub async fn take_state(ciam: &Ciam, state: &str) -> Result<Pending> {
    if state.is_empty() || state.len() > 200 {
        return Err(Reason::AUTHORIZATION_FAILED.into());
    }
    let item = take(ciam, &state_key(ciam, state)).await?;
    let s = |n: &str| item.s(n).unwrap_or_default().to_owned();
    Ok(Pending {
        nonce: s("nonce"),
        verifier: s("verifier"),
        lang: item.s("lang").and_then(Lang::parse_tag).unwrap_or_default(),
        query: s("query"),
        bind_hash: s("bindHash"),
    })
}
