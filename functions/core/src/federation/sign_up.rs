//! The sign-up that completes a pending identity (docs/federation-design.md §4.1 step 4): the
//! spec's sign-up fields, no password; the phone the pending identity proved becomes the
//! account's, and the link is made in the same transaction (`links.rs` holds the items).

use super::links::{link_exists, link_puts, read_pending, spend_pending};
use super::ProviderId;
use crate::accounts::{create_ops, SignedIn, Who};
use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::user::User;
use crate::validate::{self, Identity, Phone};
use crate::{Ciam, Reason};

/// The spec's sign-up fields of a federated sign-up (no password: the ways in are the provider
/// and the phone's code).
pub struct FederatedSignUp {
    pub pending: String,
    pub bind: String,
    pub user_name: String,
    pub company: String,
    pub country: String,
    pub accept_terms: bool,
}

/// `POST /auth/federation/register`: the pending identity of this browser, its phone proven,
/// becomes an account: one transaction creates the user (`links: 1`), takes the phone
/// (PHONE_EXIST when taken meanwhile) and the username (USERNAME_EXIST), makes the link
/// (FEDERATION_LINK_EXISTS when the subject was linked meanwhile) and ends the pending item;
/// then a session. A pending identity without a proven phone is AUTHORIZATION_FAILED. Round
/// trips: 1 (pending), 1 (the transaction), 1 (the session); the numbers' new account side by
/// side.
pub async fn register(ciam: &Ciam, r: FederatedSignUp, client: &ClientInfo) -> Result<SignedIn> {
    let user_name = validate::username(&r.user_name)?;
    let company = validate::company(&r.company)?;
    let country = validate::country(&r.country)?;
    validate::accept_terms(r.accept_terms)?;
    let pending = read_pending(ciam, &r.pending, &r.bind).await?;
    let phone = match (pending.item.s("phone"), pending.item.n("provenAt")) {
        (Some(phone), Some(_)) => Identity::Phone(Phone::parse(phone)?),
        _ => {
            return Err(Error {
                cause: Some("the pending identity has no proven phone".into()),
                ..Error::new(Reason::AUTHORIZATION_FAILED)
            })
        }
    };
    crate::cell::sign_up_here(&ciam.config, &phone)?;
    // A person an organization's connection vouched for: its rules again (the connection may
    // have changed since the proof), its link and membership in the same transaction.
    let org = match pending.provider {
        ProviderId::Org => {
            let company = super::org_phone::of_pending(ciam, &pending).await?;
            company.may_sign_up()?;
            Some(company)
        }
        _ => None,
    };
    let user = User {
        id: ciam.new_id(),
        user_name,
        phone: Some(phone.as_str().to_owned()),
        company: Some(company),
        country: Some(country),
        display_name: pending.item.s("name").map(str::to_owned),
        advertisement: "unsubscribe".into(),
        created_at: ciam.now(),
        consents: Some(0),
        links: 1,
        ..User::default()
    };
    // 0 user, 1 phone, 2 username (create_ops); 3 lookup, 4 the account's link; 5 pending.
    let mut ops = create_ops(&user, &phone);
    // The count is the new user item's own `links: 1`.
    match &org {
        Some(o) => ops.extend(o.link_puts(ciam, &pending, &user.id)),
        None => ops.extend(link_puts(ciam, &pending, &user.id, "signUp")),
    }
    ops.push(spend_pending(&pending));
    if let Some(o) = &org {
        ops.extend(o.join_ops(ciam, &user.id));
    }
    ops.extend(crate::directory::puts(&user));
    match ciam.store.transact(ops).await {
        Ok(()) => {}
        Err(e) if e.condition_failed_at(1) => return Err(phone.exists_reason().into()),
        Err(e) if e.condition_failed_at(2) => {
            return Err(Error::field(
                Reason::USERNAME_EXIST,
                "userName",
                "用户名已被占用",
                "The username is already taken",
            ))
        }
        Err(e) if e.condition_failed_at(3) || e.condition_failed_at(4) => return Err(link_exists()),
        Err(e) if e.condition_failed_at(5) => return Err(Reason::AUTHORIZATION_FAILED.into()),
        // A company's membership taken meanwhile (the organization's, by another way).
        Err(e) if e.is_condition_failed() => return Err(Reason::AUTHORIZATION_FAILED.into()),
        Err(e) => return Err(e.into()),
    }
    let who = match &org {
        Some(o) => o.who(&user),
        None => Who {
            amr: vec!["sms"],
            method: Some(crate::org::policy::method_of_provider(pending.provider)),
            ..Who::from(&user)
        },
    };
    let (signed_in, ()) = tokio::join!(
        crate::accounts::finish_login(ciam, who, client, Vec::new(), Reason::SERVICE_UNAVAILABLE),
        crate::numbers::count_new_account(ciam)
    );
    signed_in
}
