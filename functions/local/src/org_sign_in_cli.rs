//! `ciam admin org-sign-in DOMAIN --org ORG --name-en N [--name-zh N] [--required] --reason R`:
//! routes an organization's verified domain to a new OpenID Connect connection of its own, on at
//! once, from the command line (docs/organizations-connections.md §0.4-5), for scripts, the
//! browser tests and break-glass until the screens that set up and test a connection and route a
//! domain exist. The connection is made by `ciam_core::org::connections` (audited as the local
//! admin `cli:<os user>` with the reason) and marked tested by the operator's word (its test
//! sign-in is not run: its issuer may be a placeholder); the routing is the owner item's
//! `signInConn` and `signInRequired` (`ciam_core::domains::claims::SignIn`), written only while
//! the organization owns the verified domain. Prints the connection's id.

use crate::admin_cli::{ciam, operator};
use crate::StoreOptions;
use ciam_core::console::audit::{AuditAction, RequestFacts};
use ciam_core::domains::{claims, DomainName, Method};
use ciam_core::org::connections::{self, NewConnection};
use ciam_core::org::{access, OrgId};
use ciam_core::{Lang, OsEntropy};
use ciam_store::{Cond, Update};
use std::collections::BTreeMap;

/// The command's arguments.
#[derive(Clone, Debug, clap::Args)]
pub struct OrgSignIn {
    /// The verified domain to route, e.g. `acme.example`.
    pub domain: String,
    /// The organization that verified it.
    #[arg(long)]
    pub org: String,
    /// The company's name on the sign-in button, in English.
    #[arg(long)]
    pub name_en: String,
    /// ... and in Chinese (the English one when absent).
    #[arg(long)]
    pub name_zh: Option<String>,
    /// The OpenID Connect issuer of the company's IdP.
    #[arg(long, default_value = "https://idp.invalid")]
    pub issuer: String,
    /// The client id Ciam has at that IdP.
    #[arg(long, default_value = "ciam")]
    pub client_id: String,
    /// Its client secret.
    #[arg(long, default_value = "not-set")]
    pub secret: String,
    /// The domain's addresses must sign in through it (their password and mail-code sign-ins
    /// are refused).
    #[arg(long)]
    pub required: bool,
    /// Verify the domain for the organization first, on the operator's word (no DNS record or
    /// mail code: for tests and break-glass), unless an organization verified it already.
    #[arg(long)]
    pub verify: bool,
    /// Why (kept in the audit log; required).
    #[arg(long)]
    pub reason: String,
    #[command(flatten)]
    pub store: StoreOptions,
}

fn message(e: &ciam_core::Error) -> String {
    e.reason.message(Lang::EnUs).to_owned()
}

/// `ciam admin org-sign-in`: prints the connection's id, or why not (exit 1).
pub async fn command(a: &OrgSignIn) -> std::process::ExitCode {
    match run(a).await {
        Ok(id) => {
            println!("{id}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ciam: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Runs the command: the new connection's id, or why not.
pub async fn run(a: &OrgSignIn) -> Result<String, String> {
    let ciam = ciam(&a.store).await?;
    let org =
        OrgId::parse(a.org.trim()).ok_or_else(|| format!("{}: not an organization id", a.org))?;
    let domain = DomainName::parse(&a.domain).map_err(|e| message(&e))?;
    let req = RequestFacts {
        request_id: hex::encode(ciam_core::random::<16>(&OsEntropy)),
        ip: None,
        device: Some("ciam admin (command line)".to_owned()),
    };
    // One console audit entry per change (each rides its own transaction).
    let caller = || {
        access::operator(
            &ciam,
            &operator(),
            &org,
            AuditAction::OrgDomain,
            &a.reason,
            &req,
        )
        .map_err(|e| message(&e))
    };
    let store = ciam.store.as_ref();
    let mut owner = claims::owner_of(store, &domain)
        .await
        .map_err(|e| message(&e))?;
    if a.verify && owner.is_none() {
        let by = operator().user.id;
        let now = ciam.now();
        let claim = claims::add(
            store,
            ciam.entropy.as_ref(),
            now,
            &org,
            &domain,
            Method::Mail,
            &by,
        )
        .await
        .map_err(|e| message(&e))?;
        claims::mark_verified(store, now, &org, &claim, caller()?.extra)
            .await
            .map_err(|e| message(&e))?;
        owner = claims::owner_of(store, &domain)
            .await
            .map_err(|e| message(&e))?;
    }
    if owner.is_none_or(|o| o.org != org) {
        return Err(format!(
            "{}: not a verified domain of {org}",
            domain.as_str()
        ));
    }
    let settings = BTreeMap::from([
        ("issuer".to_owned(), a.issuer.clone()),
        ("clientId".to_owned(), a.client_id.clone()),
    ]);
    let new = NewConnection {
        protocol: "oidc".into(),
        name_zh: Some(a.name_zh.clone().unwrap_or_else(|| a.name_en.clone())),
        name_en: Some(a.name_en.clone()),
        settings,
        secret: a.secret.clone(),
        jit: None,
    };
    let made = connections::create(&ciam, &caller()?, &org, new)
        .await
        .map_err(|e| message(&e))?;
    connections::record_test(&ciam, &made, true)
        .await
        .map_err(|e| message(&e))?;
    let tested = connections::get(ciam.store.as_ref(), &org, &made.conn_id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the connection went away")?;
    connections::set_on(&ciam, &caller()?, &tested, true)
        .await
        .map_err(|e| message(&e))?;
    let routing = vec![
        Update::Set(claims::SIGN_IN_CONN.into(), made.conn_id.as_str().into()),
        Update::Set(
            claims::SIGN_IN_REQUIRED.into(),
            i64::from(a.required).into(),
        ),
    ];
    ciam.store
        .update(
            &claims::owner_key(&domain),
            routing,
            Some(Cond::eq("org", org.as_str())),
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(made.conn_id.as_str().to_owned())
}
