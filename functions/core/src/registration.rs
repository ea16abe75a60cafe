//! Sign-up (`POST /auth/register`): the spec's rules, the code, and the one transaction that
//! creates the account (its writes are `accounts::create_ops`).

use crate::accounts::create_ops;
use crate::error::{Error, Result};
use crate::user::User;
use crate::validate::{self, Identity};
use crate::{codes, password, random, Ciam, Purpose, Reason};

pub struct Registration {
    pub user_name: String,
    pub company: String,
    pub identity: String,
    pub code: String,
    pub password: String,
    pub confirm_password: String,
    pub country: String,
    pub accept_terms: bool,
}

/// `POST /auth/register`. Every rule of spec §5 first, then the code, then one transaction that
/// creates the user and takes the identity and the username (and uses the code), so nothing
/// is half-written. MAIL_EXIST/PHONE_EXIST only after the code checked out: only the owner of the
/// address ever learns it is registered. A mail at a domain routed to its company's sign-in
/// with `required`: ORG_SIGN_IN_REQUIRED before the code is judged (the domain's routing is
/// public, `POST /auth/org/discover`). Round trips: 2 (the code read beside the mail's domain
/// owner item, then the transaction).
/// Sent again after a 503 whose transaction committed, it gives the used code
/// (`codes::used_already`): with the account there, the exists answer (+1 read on that path only).
pub async fn register(ciam: &Ciam, r: Registration) -> Result<String> {
    let user_name = validate::username(&r.user_name)?;
    let company = validate::company(&r.company)?;
    let id = Identity::parse(&r.identity)?;
    crate::cell::sign_up_here(&ciam.config, &id)?;
    if let Identity::Mail(m) = &id {
        if ciam.is_internal_mail(m) {
            return Err(Error::field(
                Reason::EIAM_MAIL_PERMISSION_DENIED,
                "mail",
                "员工邮箱请使用员工登录",
                "Staff addresses sign in through staff login",
            ));
        }
    }
    let code = validate::code("code", &r.code)?;
    password::check_new(&r.password)?;
    validate::confirm_matches(&r.password, &r.confirm_password)?;
    let country = validate::country(&r.country)?;
    validate::accept_terms(r.accept_terms)?;

    // A mail at a domain that requires its company's sign-in signs up through that company
    // (docs/organizations-connections.md §0.5): its owner item is read beside the code.
    let (stored, required) = tokio::join!(
        codes::read(ciam, &id, Purpose::Register),
        crate::domains::sign_in::required_for(ciam.store.as_ref(), &id)
    );
    if let Some(conn) = required? {
        return Err(crate::domains::sign_in::refusal(&conn));
    }
    let stored = stored?;
    if codes::used_already(ciam, &id, Purpose::Register, &code, stored.as_ref()).await?
        && crate::user::has_account(ciam, &id).await?
    {
        return Err(id.exists_reason().into());
    }
    let verified = codes::judge(ciam, &id, Purpose::Register, &code, stored).await?;
    let now = ciam.now();
    let user = User {
        id: ciam.new_id(),
        user_name,
        mail: matches!(id, Identity::Mail(_)).then(|| id.as_str().to_owned()),
        phone: matches!(id, Identity::Phone(_)).then(|| id.as_str().to_owned()),
        company: Some(company),
        country: Some(country),
        advertisement: "unsubscribe".into(),
        pwd_hash: Some(password::hash(r.password, random::<16>(ciam.entropy.as_ref())).await?),
        created_at: now,
        // Counted from the start: no consent, nothing announced (`events::heard`).
        consents: Some(0),
        ..User::default()
    };
    let mut ops = create_ops(&user, &id);
    ops.push(verified.consume);
    // The console's lists (after the operations whose failures are read by index).
    ops.extend(crate::directory::puts(&user));
    match ciam.store.transact(ops).await {
        Ok(()) => {
            // The mail was proven by its code: a verified domain may enrol the person.
            crate::domains::enrol::after_proof(ciam, &user.id, &id).await;
            Ok(user.id)
        }
        Err(e) if e.condition_failed_at(3) => Err(Reason::VERIFYCODE_NOT_FOUND.into()),
        Err(e) if e.condition_failed_at(1) => Err(id.exists_reason().into()),
        Err(e) if e.condition_failed_at(2) => Err(Error::field(
            Reason::USERNAME_EXIST,
            "userName",
            "用户名已被占用",
            "The username is already taken",
        )),
        Err(e) => Err(e.into()),
    }
}
