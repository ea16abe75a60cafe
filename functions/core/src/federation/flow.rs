//! A federated sign-in's round trip, for every provider: `start` (the browser-bound state and
//! the authorization request) and the callback (`take_state`, then `finish`: the identity, the
//! account, the one-time login code).
//!
//! Items: `<Items::state><keyed hash of state>` / `STATE` {nonce?, verifier?, provider, lang,
//! surface, query, bindHash, linkFor?, sid?}, 10 minutes (staff: `STAFFSTATE#`), consumed by a conditional delete, so each works
//! once even under concurrency; a state of another provider is not found under this one's prefix
//! (staff's) or names another `provider` (the providers that share `FEDSTATE#`).

use super::links::{self, Finished};
pub use super::returning::{LinkFor, Pending, Through};
use super::{ExternalIdentity, Facts, LinkRule, Provider, ProviderId, Surface};
use crate::error::Result;
use crate::staff::{
    check_bind_hash, issue_login_code, link, pkce_challenge, return_query, staff_mail, take, token,
    StaffClaims,
};
use crate::{Ciam, Error, Lang, Reason};
use ciam_store::{Cond, Item, Key};

/// How long a sign-in may stay at the provider.
pub const STATE_TTL: i64 = 600;

/// Where the provider sends the browser back (registered there): `/auth/<name>/callback`.
pub fn redirect_uri(ciam: &Ciam, facts: &Facts) -> String {
    format!(
        "{}/ciam/v1/auth/{}/callback",
        ciam.config.public_url, facts.name
    )
}

fn state_key(ciam: &Ciam, facts: &Facts, state: &str) -> Key {
    Key::new(
        format!(
            "{}{}",
            facts.items.state,
            ciam.keys
                .keyed_hash(facts.items.state_label, state.as_bytes())
        ),
        "STATE",
    )
}

/// Where the browser goes for a new sign-in with `provider` (or, with `link_for`, a link from
/// the security centre: the state carries the account and the session, and the callback makes
/// a pending link of it): checks `bind_hash`, makes sure the provider is reachable, stores the
/// state ([`start`]), then asks the provider for its URL. Round trips: 1 (the state), plus
/// what the provider's `ready` costs.
pub async fn authorization_request(
    ciam: &Ciam,
    provider: &dyn Provider,
    lang: Lang,
    query: &str,
    bind_hash: &str,
    surface: Surface,
    link_for: Option<&LinkFor>,
) -> Result<String> {
    check_bind_hash(bind_hash)?;
    provider.ready(ciam, surface).await?;
    let started = start(
        ciam,
        provider.facts().id,
        lang,
        query,
        bind_hash,
        surface,
        link_for,
        None,
    )
    .await?;
    Ok(provider.authorization_url(ciam, &started, surface).await?)
}

/// [`authorization_request`] for an organization's connection (provider `org`): the state also
/// records the connection's id and whether it is a test sign-in, and the `surface` it left
/// from (a WeCom connection inside WeCom's browser uses the in-client authorization). Round
/// trips: 1 (the state), plus the provider's `ready`.
pub async fn connection_request(
    ciam: &Ciam,
    provider: &dyn Provider,
    through: &Through,
    lang: Lang,
    query: &str,
    bind_hash: &str,
    surface: Surface,
) -> Result<String> {
    check_bind_hash(bind_hash)?;
    provider.ready(ciam, surface).await?;
    let started = start(
        ciam,
        provider.facts().id,
        lang,
        query,
        bind_hash,
        surface,
        None,
        Some(through),
    )
    .await?;
    Ok(provider.authorization_url(ciam, &started, surface).await?)
}

/// A sign-in sent to the provider: what goes into the authorization request.
#[derive(Debug)]
pub struct Started {
    pub state: String,
    pub lang: Lang,
    /// Where the sign-in was started (recorded in the state: the callback's `Pending` has it,
    /// so a provider with two authorizations knows which one the code came from).
    pub surface: Surface,
    /// The OpenID Connect nonce, for a provider whose state keeps one (`Facts::nonce`).
    pub nonce: Option<String>,
    /// The PKCE S256 challenge of the verifier the state keeps (`Facts::pkce`).
    pub code_challenge: Option<String>,
}

/// Stores the state of a new sign-in (10 minutes), bound to the browser's `bind_hash`; it also
/// holds a PKCE verifier and an OpenID Connect nonce when the provider's facts say so (staff
/// both, Feishu the verifier only), a link's `linkFor` and `sid`, a connection's `conn` and
/// `test`. Round trips: 1.
#[allow(clippy::too_many_arguments)]
async fn start(
    ciam: &Ciam,
    provider: ProviderId,
    lang: Lang,
    query: &str,
    bind_hash: &str,
    surface: Surface,
    link_for: Option<&LinkFor>,
    through: Option<&Through>,
) -> Result<Started> {
    check_bind_hash(bind_hash)?;
    let facts = provider.facts();
    let state = token(ciam);
    let mut item = Item::new(state_key(ciam, facts, &state));
    let nonce = facts.nonce.then(|| token(ciam));
    let verifier = facts.pkce.then(|| token(ciam));
    if let Some(nonce) = &nonce {
        item = item.with("nonce", nonce.as_str());
    }
    if let Some(verifier) = &verifier {
        item = item.with("verifier", verifier.as_str());
    }
    let item = item
        .with("provider", facts.name)
        .with("lang", lang.tag())
        .with("surface", surface.tag())
        .with("query", return_query(query))
        .with("bindHash", bind_hash)
        .with_opt("linkFor", link_for.map(|l| l.user_id.clone()))
        .with_opt("sid", link_for.map(|l| l.sid.clone()))
        .with_opt("conn", through.map(|t| t.conn_id.clone()))
        .with_opt("test", through.filter(|t| t.test).map(|_| true))
        .expires(ciam.now() + STATE_TTL);
    ciam.store.put(item, Some(Cond::NotExists)).await?;
    Ok(Started {
        state,
        lang,
        surface,
        nonce,
        code_challenge: verifier.as_deref().map(pkce_challenge),
    })
}

/// Consumes the state of a sign-in with `provider`: a second callback with it (a replay), an
/// unknown, expired or another provider's one is AUTHORIZATION_FAILED. The providers but staff
/// share the `FEDSTATE#` items, so the item names the provider that started it: another's is
/// refused and left for its own callback. Round trips: 2 (read, conditional delete).
pub async fn take_state(ciam: &Ciam, provider: ProviderId, state: &str) -> Result<Pending> {
    if state.is_empty() || state.len() > 200 {
        return Err(Reason::AUTHORIZATION_FAILED.into());
    }
    let facts = provider.facts();
    let item = take(ciam, &state_key(ciam, facts, state)).await?;
    // The providers that link share `FEDSTATE#`: another one's state is used up, not used.
    if item.s("provider").is_some_and(|p| p != facts.name) {
        return Err(Reason::AUTHORIZATION_FAILED.into());
    }
    let s = |n: &str| item.s(n).unwrap_or_default().to_owned();
    Ok(Pending {
        lang: item.s("lang").and_then(Lang::parse_tag).unwrap_or_default(),
        query: s("query"),
        bind_hash: s("bindHash"),
        surface: Surface::from_tag(&s("surface")),
        nonce: item.s("nonce").filter(|_| facts.nonce).map(str::to_owned),
        verifier: item.s("verifier").filter(|_| facts.pkce).map(str::to_owned),
        link_for: item.s("linkFor").map(|user_id| LinkFor {
            user_id: user_id.to_owned(),
            sid: s("sid"),
        }),
        connection: item.s("conn").map(|conn_id| Through {
            conn_id: conn_id.to_owned(),
            test: item.bool("test") == Some(true),
        }),
    })
}

/// What the provider's redirect back brought (besides the state).
#[derive(Debug, Default)]
pub struct Callback {
    pub code: Option<String>,
    pub error: Option<String>,
    /// RFC 9207: the issuer of the answer, when an OpenID Connect provider sends it.
    pub iss: Option<String>,
}

/// The callback after its state was taken (`take_state`): the provider's identity, then the
/// account by the provider's link rule, then a one-time login code bound to the state's
/// `bindHash` (staff); a provider that links (`LinkRule::ProvePhone`) reaches an account only
/// through a link, else the identity waits as a pending one (`links::arrive`). Round trips:
/// those of the link rule (staff: 2 or 3), 1 (the login code or the pending identity); plus the
/// provider's calls.
pub async fn finish(
    ciam: &Ciam,
    provider: &dyn Provider,
    pending: &Pending,
    cb: Callback,
) -> Result<Finished> {
    let identity = provider.identify(ciam, &cb, pending).await?;
    match provider.facts().link {
        LinkRule::CompanyMail => {
            let user_id = company_mail_link(ciam, &identity).await?;
            issue_login_code(ciam, &user_id, &pending.bind_hash, identity.mfa)
                .await
                .map(Finished::Code)
        }
        LinkRule::ProvePhone => links::arrive(ciam, provider.facts(), &identity, pending).await,
        LinkRule::Connection => Err(Error {
            cause: Some("a connection's sign-in ends in federation::org_sign_in".into()),
            ..Error::new(Reason::SERVICE_UNAVAILABLE)
        }),
    }
}

/// Staff's rule: the verified company mail links the account that has it, or creates one.
async fn company_mail_link(ciam: &Ciam, identity: &ExternalIdentity) -> Result<String> {
    let (email, verified) = identity.vouches.mail.clone().unzip();
    let claims = StaffClaims {
        sub: identity.subject.clone(),
        email,
        email_verified: verified,
        name: identity.name.clone(),
        ..StaffClaims::default()
    };
    let mail = staff_mail(ciam, &claims)?;
    link(ciam, &claims, &mail).await
}
