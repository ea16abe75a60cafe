//! Sign-in routed by verified domain (docs/organizations-connections.md §0.4-5): the answer of
//! `POST /auth/org/discover` (which connection, if any, a typed mail goes through) and the
//! server's rule "must use company sign-in" (the password and mail-code sign-ins, and sign-up by
//! mail, of an address whose domain is routed with `required` are refused).
//!
//! Both read the domain's owner item (`DOMAIN#<domain>` / `DOMAIN`, its `signInConn` and
//! `signInRequired`, [`super::SignIn`]); discover then reads the connection's own item
//! (`ORG#<orgId>` / `CONN#<connId>`, the owner's organization: a connection of another
//! organization is never found) for its names and status. Neither ever looks an account up.

use crate::domains::claims::{self, SignIn};
use crate::domains::name::DomainName;
use crate::error::{Error, Message, Result};
use crate::org::connections::{self, ConnId, Protocol, Status};
use crate::validate::{Email, Identity};
use crate::Reason;
use ciam_store::Store;

/// The connection a mail's domain is routed to: what the sign-in page needs for its button.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Discovered {
    pub conn: ConnId,
    pub name_zh: String,
    pub name_en: String,
    pub protocol: Protocol,
    /// The password and code fields give way to the connection (the server refuses them).
    pub required: bool,
}

/// The domain of `mail` if it could be anybody's verified domain (a malformed address, a
/// public suffix or a free-mail provider never is: nothing is read for them).
fn claimable(mail: &str) -> Option<DomainName> {
    let mail = Email::parse(mail).ok()?;
    DomainName::of_mail(mail.as_str())
}

/// The connection `mail` signs in through, when its domain is verified and its organization
/// routes it to one of its own connections that is `on`; `None` otherwise (not a mail, a
/// domain nobody verified, not routed, a connection not on or gone). Round trips: 0 (not a
/// mail, a domain that can never be claimed), 1 (the owner item: not verified, not routed), 2
/// (then the connection's item).
pub async fn discover(store: &dyn Store, mail: &str) -> Result<Option<Discovered>> {
    let Some(domain) = claimable(mail) else {
        return Ok(None);
    };
    let Some(owner) = claims::owner_of(store, &domain).await? else {
        return Ok(None);
    };
    let Some(SignIn { conn, required }) = owner.sign_in else {
        return Ok(None);
    };
    let found = connections::get(store, &owner.org, &conn).await?;
    Ok(found
        .filter(|c| c.status == Status::On)
        .map(|c| Discovered {
            conn: c.conn_id,
            name_zh: c.name_zh,
            name_en: c.name_en,
            protocol: c.protocol,
            required,
        }))
}

/// The connection a sign-in (or sign-up) of `id` must go through instead: `Some` only for a
/// mail whose domain's owner item routes it with `required`. Reads the owner item only (the
/// connection's status is the routing's business: a connection turned off or deleted takes its
/// routing away). Round trips: 0 (a phone, a domain that can never be claimed), else 1
/// (GetItem, 0.5 RCU), meant to run beside the request's own first call.
pub async fn required_for(store: &dyn Store, id: &Identity) -> Result<Option<ConnId>> {
    Ok(owner_for(store, id)
        .await?
        .and_then(|(_, owner)| required_of(&owner)))
}

/// The owner item of `id`'s domain, with the domain: None for a phone, a domain that can never
/// be claimed (nothing read) or nobody's. Round trips: 0 or 1 (GetItem).
pub async fn owner_for(
    store: &dyn Store,
    id: &Identity,
) -> Result<Option<(DomainName, claims::Owner)>> {
    let Identity::Mail(mail) = id else {
        return Ok(None);
    };
    let Some(domain) = DomainName::of_mail(mail.as_str()) else {
        return Ok(None);
    };
    Ok(claims::owner_of(store, &domain)
        .await?
        .map(|owner| (domain, owner)))
}

/// The connection an owner item requires its addresses to sign in through, if any.
pub fn required_of(owner: &claims::Owner) -> Option<ConnId> {
    owner
        .sign_in
        .as_ref()
        .filter(|s| s.required)
        .map(|s| s.conn.clone())
}

/// ORG_SIGN_IN_REQUIRED naming `conn` (the body's `connection`, so the page can offer its
/// button).
pub fn refusal(conn: &ConnId) -> Error {
    Error {
        message: Some(Message::Connection(conn.as_str().to_owned())),
        ..Error::new(Reason::ORG_SIGN_IN_REQUIRED)
    }
}

/// [`required_for`] as a refusal: `Err(ORG_SIGN_IN_REQUIRED)` when the address must use its
/// company's sign-in. Round trips: as [`required_for`].
pub async fn must_not_be_required(store: &dyn Store, id: &Identity) -> Result<()> {
    match required_for(store, id).await? {
        Some(conn) => Err(refusal(&conn)),
        None => Ok(()),
    }
}
