//! `ciam admin <action> <mail|phone|userId> --reason R` and `ciam admin roles`: the console's
//! account actions from the command line, for whoever runs the binary against the store (the
//! first admin, or when the console is out of reach). They act as a local admin whose audit
//! actor is `cli:<os user>` (`cli:local` when the OS does not say), through the very functions
//! the console's routes call (`console::actions::act`), so the effect, the audit entry, the
//! customer's activity entry and the notice are the same; the notice goes to the local notifier
//! (printed, as `ciam serve`'s dev outbox does).

use crate::{load_or_create_keys, open_store, DevOutbox, FolderBlobs, StoreChoice, StoreOptions};
use ciam_core::console::accounts::{find, Lookup};
use ciam_core::console::actions::{act, Action};
use ciam_core::console::audit::RequestFacts;
use ciam_core::console::{roles, Operator, Role};
use ciam_core::user::User;
use ciam_core::{Ciam, Config, Lang, OsEntropy, SystemClock};
use ciam_store::Key;
use std::sync::Arc;

/// The account actions the command line offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CliAction {
    Unlock,
    Suspend,
    Reactivate,
    ResetTwoFactor,
}

impl CliAction {
    fn action(self) -> Action {
        match self {
            CliAction::Unlock => Action::Unlock,
            CliAction::Suspend => Action::Suspend,
            CliAction::Reactivate => Action::Reactivate,
            CliAction::ResetTwoFactor => Action::ResetTwoFactor,
        }
    }

    /// The command's name (`ciam admin <name>`).
    pub fn name(self) -> &'static str {
        match self {
            CliAction::Unlock => "unlock",
            CliAction::Suspend => "suspend",
            CliAction::Reactivate => "reactivate",
            CliAction::ResetTwoFactor => "reset-two-factor",
        }
    }
}

/// The audit actor of the command line: `cli:<os user>`, else `cli:local`.
pub fn actor() -> String {
    let user = ["USER", "USERNAME", "LOGNAME"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .map(|u| u.trim().to_owned())
        .find(|u| !u.is_empty() && u.len() <= 64)
        .unwrap_or_else(|| "local".to_owned());
    format!("cli:{user}")
}

/// The operator the command line acts as: a local admin named [`actor`].
pub(crate) fn operator() -> Operator {
    Operator {
        user: User {
            id: actor(),
            ..User::default()
        },
        role: Role::Admin,
        session: Key::new("", ""),
    }
}

/// The product over the store these options name, as `ciam serve` builds it (no listener).
pub(crate) async fn ciam(opts: &StoreOptions) -> Result<Ciam, String> {
    if opts.store == StoreChoice::Sqlite {
        std::fs::create_dir_all(&opts.data)
            .map_err(|e| format!("cannot create {}: {e}", opts.data.display()))?;
    }
    let clock: Arc<dyn ciam_store::Clock> = Arc::new(SystemClock);
    let keys = load_or_create_keys(&opts.data)?;
    let store = open_store(opts, clock.clone()).await?;
    Ok(Ciam {
        store,
        clock,
        entropy: Arc::new(OsEntropy),
        keys,
        notifier: Arc::new(DevOutbox::default()),
        blobs: Arc::new(FolderBlobs::new(opts.data.join("avatars"))),
        images: Arc::new(ciam_core::avatar::InProcessDecoder),
        config: Config::default(),
    })
}

/// `ciam admin backfill-directory`: the console's directory entries of every account created
/// before the directory existed, and the numbers' account total (`directory::backfill`: a scan,
/// run once after the upgrade). Prints progress on stderr.
pub async fn backfill_directory(opts: &StoreOptions) -> Result<String, String> {
    let ciam = ciam(opts).await?;
    let done = ciam_core::directory::backfill(&ciam, |so_far| {
        eprintln!("backfill-directory: {} accounts so far", so_far.accounts);
    })
    .await
    .map_err(|e| message(&e))?;
    Ok(format!(
        "{} accounts, {} directory entries written; the account total is {}",
        done.accounts, done.entries, done.accounts
    ))
}

/// `ciam admin org-suggestions PREFIX`: one line per company name, `<accounts>\t<name>`, most
/// accounts first.
pub async fn org_suggestion_lines(
    prefix: &str,
    opts: &StoreOptions,
) -> Result<Vec<String>, String> {
    let ciam = ciam(opts).await?;
    let found = ciam_core::org::manage::suggestions(ciam.store.as_ref(), prefix)
        .await
        .map_err(|e| message(&e))?;
    Ok(found
        .iter()
        .map(|s| format!("{}\t{}", s.accounts, s.company))
        .collect())
}

/// `ciam admin org-create OWNER --name-en N [--name-zh N] --reason R`: an active organization
/// owned by the account OWNER names, made as the console's `POST /admin/organizations` makes it
/// (the console's audit entry and the organization's slice in its transaction). Answers its id.
pub async fn org_create(
    owner: &str,
    (name_zh, name_en): (Option<&str>, &str),
    reason: &str,
    opts: &StoreOptions,
) -> Result<String, String> {
    use ciam_core::console::audit::AuditAction;
    use ciam_core::org::{self, access, NewOrg, OrgId, Status};
    let ciam = ciam(opts).await?;
    let account = find(&ciam, &lookup(owner))
        .await
        .map_err(|e| format!("{owner}: {}", message(&e)))?;
    let req = RequestFacts {
        request_id: hex::encode(ciam_core::random::<16>(&OsEntropy)),
        ip: None,
        device: Some("ciam admin (command line)".to_owned()),
    };
    let op = operator();
    let id = OrgId::new(&ciam);
    let caller = access::operator(&ciam, &op, &id, AuditAction::OrgCreate, reason, &req)
        .map_err(|e| message(&e))?;
    let (name_zh, name_en) = NewOrg::names(name_zh, Some(name_en)).map_err(|e| message(&e))?;
    let new = NewOrg {
        name_zh,
        name_en,
        status: Status::Active,
        owner: Some(account.user_id),
        by: op.user.id.clone(),
        by_role: op.role.as_str().to_owned(),
        reason: caller.reason.clone(),
    };
    let made = org::create_with_id(&ciam, id, new, caller.extra)
        .await
        .map_err(|e| message(&e))?;
    Ok(made.org_id.to_string())
}

/// What the command line names an account by: a mail (with `@`), a phone number, else a user id.
fn lookup(who: &str) -> Lookup {
    let who = who.trim();
    if who.contains('@') {
        Lookup::Mail(who.to_owned())
    } else if ciam_core::validate::Phone::parse(who).is_ok() {
        Lookup::Phone(who.to_owned())
    } else {
        Lookup::UserId(who.to_owned())
    }
}

fn message(e: &ciam_core::Error) -> String {
    let mut m = e.reason.message(Lang::EnUs).to_owned();
    if let Some(field) = &e.field {
        m.push_str(&format!(" ({field})"));
    }
    m
}

/// `ciam admin <action> <who> --reason R`: does the action on the account `who` names. Answers
/// its user id.
pub async fn act_on(
    action: CliAction,
    who: &str,
    reason: &str,
    opts: &StoreOptions,
) -> Result<String, String> {
    let ciam = ciam(opts).await?;
    let account = find(&ciam, &lookup(who))
        .await
        .map_err(|e| format!("{who}: {}", message(&e)))?;
    let req = RequestFacts {
        request_id: hex::encode(ciam_core::random::<16>(&OsEntropy)),
        ip: None,
        device: Some("ciam admin (command line)".to_owned()),
    };
    act(
        &ciam,
        &operator(),
        &account.user_id,
        action.action(),
        reason,
        &req,
    )
    .await
    .map_err(|e| format!("{who}: {}", message(&e)))?;
    Ok(account.user_id)
}

/// `ciam admin roles`: every role holder, one a line: role, user id, mail, who granted it and
/// when (Unix seconds).
pub async fn role_lines(opts: &StoreOptions) -> Result<Vec<String>, String> {
    let ciam = ciam(opts).await?;
    let holders = roles::list(&ciam).await.map_err(|e| message(&e))?;
    Ok(holders
        .iter()
        .map(|h| {
            format!(
                "{}\t{}\t{}\tgranted by {} at {}",
                h.role,
                h.user_id,
                h.mail.as_deref().unwrap_or("-"),
                h.granted_by,
                h.granted_at
            )
        })
        .collect())
}
