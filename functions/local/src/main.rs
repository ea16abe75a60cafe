//! `ciam`: the whole product on one port, on the embedded store by default.

use ciam_local::admin_cli::{self, CliAction};
use ciam_local::audit_cli::{self, ExportArgs};
use ciam_local::logout_cli;
use ciam_local::{grant_role, serve, ServeOptions, StoreOptions};
use clap::{Parser, Subcommand};
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "ciam",
    version,
    about = "Ciam: customer identity and sign-in portal"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start: the size of the `Serve` variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Serve every /ciam/v1 route and the web app on one port.
    ///
    /// Federated sign-in providers come from the environment as in AWS: `CIAM_WECHAT_APP_ID`,
    /// `CIAM_WECHAT_APP_SECRET`, optionally `CIAM_WECHAT_OA_APP_ID` and
    /// `CIAM_WECHAT_OA_APP_SECRET`, and `CIAM_WECHAT_OPEN_BASE` / `CIAM_WECHAT_API_BASE` to
    /// point them at ciam-fakes (README.md, "Sign in with WeChat locally"); DingTalk alike with
    /// `CIAM_DINGTALK_CLIENT_ID`, `CIAM_DINGTALK_CLIENT_SECRET`, optionally
    /// `CIAM_DINGTALK_CORP_ID`, and `CIAM_DINGTALK_LOGIN_BASE` / `CIAM_DINGTALK_API_BASE`; WeCom
    /// with `CIAM_WECOM_CORP_ID`, `CIAM_WECOM_AGENT_ID`, `CIAM_WECOM_CORP_SECRET` and
    /// `CIAM_WECOM_LOGIN_BASE` / `CIAM_WECOM_OPEN_BASE` / `CIAM_WECOM_API_BASE`.
    /// Feishu with `CIAM_FEISHU_APP_ID`, `CIAM_FEISHU_APP_SECRET`, optionally
    /// `CIAM_FEISHU_REGION` (`feishu` or `lark`), and `CIAM_FEISHU_ACCOUNTS_BASE` /
    /// `CIAM_FEISHU_OPEN_BASE`.
    Serve {
        #[arg(long, default_value = "127.0.0.1:8080", env = "CIAM_ADDR")]
        addr: SocketAddr,
        #[command(flatten)]
        store: StoreOptions,
        /// Do not serve GET /ciam/dev/outbox (codes are still printed on the console).
        #[arg(long)]
        no_dev_outbox: bool,
        /// Leave the operator console out: its routes (/ciam/v1/admin/...) answer 404 and its
        /// screens say the console is off.
        #[arg(long, env = "CIAM_NO_CONSOLE")]
        no_console: bool,
        /// The built web app.
        #[arg(long, default_value = "web/dist", env = "CIAM_WEB_DIST")]
        web_dist: PathBuf,
        /// Mail domains of internal staff, comma-separated.
        #[arg(long, env = "CIAM_INTERNAL_DOMAINS", value_delimiter = ',')]
        internal_domains: Option<Vec<String>>,
        /// Where browsers reach this server (e.g. https://id.example.com); default
        /// http://<bound address>.
        #[arg(long, env = "CIAM_PUBLIC_URL")]
        public_url: Option<String>,
        /// Passkeys: the RP ID when it is not the public URL's host (a parent domain of it).
        /// Passkeys need a public URL with a host name, e.g. --public-url http://localhost:8080
        /// (a browser refuses an IP address as RP ID).
        #[arg(long, env = "CIAM_PASSKEY_RP_ID")]
        passkey_rp_id: Option<String>,
        /// Passkeys: an origin allowed besides the public URL's own (repeatable).
        #[arg(
            long = "passkey-origin",
            env = "CIAM_PASSKEY_ORIGINS",
            value_delimiter = ','
        )]
        passkey_origins: Vec<String>,
        /// The OpenID Connect signing-key version; raising it by one rotates the key (the JWKS
        /// keeps publishing the previous one).
        #[arg(long, env = "CIAM_OIDC_KEY_VERSION", default_value_t = 1,
              value_parser = clap::value_parser!(u32).range(1..))]
        oidc_key_version: u32,
        /// Webhooks under production rules: https only and no loopback address (by default
        /// `ciam serve` also delivers to http://localhost, 127.0.0.1 and [::1]).
        #[arg(long, env = "CIAM_WEBHOOKS_STRICT")]
        webhooks_strict: bool,
        /// Staff sign-in: the company OpenID Connect provider's issuer URL (with the client id
        /// and secret; redirect URI <public url>/ciam/v1/auth/staff/callback).
        #[arg(long, env = "CIAM_STAFF_ISSUER")]
        staff_issuer: Option<String>,
        /// Staff sign-in: Ciam's client id at the company identity provider.
        #[arg(long, env = "CIAM_STAFF_CLIENT_ID")]
        staff_client_id: Option<String>,
        /// Staff sign-in: Ciam's client secret at the company identity provider.
        #[arg(long, env = "CIAM_STAFF_CLIENT_SECRET", hide_env_values = true)]
        staff_client_secret: Option<String>,
        /// Staff sign-in: the provider's `acr` values that mean a second factor (its `amr`
        /// holding mfa, otp or hwk means so too); such a staff session enters the console.
        #[arg(
            long = "staff-mfa-acr",
            env = "CIAM_STAFF_MFA_ACR",
            value_delimiter = ','
        )]
        staff_mfa_acr: Vec<String>,
        /// How long the console's audit entries are kept, in days.
        #[arg(long, env = "CIAM_AUDIT_RETENTION_DAYS", default_value_t = 400,
              value_parser = clap::value_parser!(u32).range(1..=3650))]
        audit_retention_days: u32,
        #[command(flatten)]
        mail: ciam_local::mail::MailOptions,
        #[command(flatten)]
        sms: ciam_local::SmsOptions,
        /// The mainland China cell's per-client limits, counted in the store (the global cell's
        /// web ACL rules and limits; the client is the connection's address, or the
        /// CloudFront-Viewer-Address header when a CloudFront distribution is in front).
        #[arg(long, env = "CIAM_CLIENT_LIMITS")]
        client_limits: bool,
        #[command(flatten)]
        cell: ciam_local::cell::CellOptions,
    },
    /// Manage roles of existing accounts and act on them as the console does.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Gives the account with this mail a console role (`admin` also manages the partner-app
    /// registry in the console), replacing the one it had.
    Grant {
        mail: String,
        /// viewer, operator or admin.
        #[arg(long, default_value = "admin", value_parser = parse_role)]
        role: ciam_core::console::Role,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Clears the lock and the failure counters of an account (as the console's unlock).
    Unlock(AccountArgs),
    /// Suspends an account: no sign-in by any method, its sessions end.
    Suspend(AccountArgs),
    /// Lifts an account's suspension.
    Reactivate(AccountArgs),
    /// Turns an account's two-factor sign-in off (its sessions end).
    ResetTwoFactor(AccountArgs),
    /// Lists the company names accounts wrote that start with PREFIX (case and width ignored),
    /// with their number of accounts, most first: candidates for organizations (nothing is
    /// merged; docs/organizations-design.md §5). One query of the company directory.
    OrgSuggestions {
        prefix: String,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Creates an active organization owned by the account OWNER (mail, phone or user id), as the
    /// console's "Create" does (audited with the reason); prints its id.
    OrgCreate {
        owner: String,
        #[arg(long)]
        name_en: String,
        #[arg(long)]
        name_zh: Option<String>,
        #[arg(long)]
        reason: String,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Lists who holds a console role.
    Roles {
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Writes the console's directory entries (lists by company and sign-up day) of accounts
    /// created before the directory existed, and the overview's account total. Scans the
    /// accounts once: run it once after upgrading (idempotent).
    BackfillDirectory {
        #[command(flatten)]
        store: StoreOptions,
    },
    /// The console's audit log.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// What the apps a session signed in to are told when it ends (Back-Channel Logout tokens,
    /// ticket apps' `session.ended` notices), one JSON line each; sends nothing.
    LogoutNotices {
        /// The user id (an id_token's `sub`).
        user_id: String,
        /// The session's `sid` (an id_token's `sid`).
        sid: String,
        /// The issuer's base, as `ciam serve --public-url` (the tokens' `iss`).
        #[arg(long, env = "CIAM_PUBLIC_URL")]
        public_url: String,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Partner apps (as the console's `POST /admin/apps`; for scripts and break-glass).
    Apps {
        #[command(subcommand)]
        command: ciam_local::apps_cli::AppsCommand,
    },
    /// Routes an organization's verified domain to a new OpenID Connect connection of its own,
    /// on at once (`org_sign_in_cli`); prints the connection's id.
    OrgSignIn(ciam_local::org_sign_in_cli::OrgSignIn),
    /// A partner app's webhook endpoints.
    Webhooks {
        #[command(subcommand)]
        command: ciam_local::webhooks_cli::WebhooksCommand,
    },
}

/// An account action's arguments: whom, why, and the store.
#[derive(clap::Args)]
struct AccountArgs {
    /// The account's mail, phone number or user id.
    who: String,
    /// Why (kept in the audit log; required).
    #[arg(long)]
    reason: String,
    #[command(flatten)]
    store: StoreOptions,
}

/// Runs `ciam admin <action>`.
async fn account_action(action: CliAction, a: AccountArgs) -> std::process::ExitCode {
    match admin_cli::act_on(action, &a.who, &a.reason, &a.store).await {
        Ok(user_id) => {
            println!("{}: done for {} ({user_id})", action.name(), a.who);
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ciam: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Writes the entries of a range of at most 31 days as CSV or JSON Lines (stdout by
    /// default), a day at a time.
    Export {
        #[command(flatten)]
        args: ExportArgs,
        #[command(flatten)]
        store: StoreOptions,
    },
}

fn parse_role(s: &str) -> Result<ciam_core::console::Role, String> {
    ciam_core::console::Role::parse(s).ok_or_else(|| format!("{s}: use viewer, operator or admin"))
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("CIAM_LOG")
                .unwrap_or_else(|_| "info".into()),
        )
        .init();
    let Cli { command } = Cli::parse();
    let opts = match command {
        Command::Admin {
            command: AdminCommand::Unlock(a),
        } => return account_action(CliAction::Unlock, a).await,
        Command::Admin {
            command: AdminCommand::Suspend(a),
        } => return account_action(CliAction::Suspend, a).await,
        Command::Admin {
            command: AdminCommand::Reactivate(a),
        } => return account_action(CliAction::Reactivate, a).await,
        Command::Admin {
            command: AdminCommand::ResetTwoFactor(a),
        } => return account_action(CliAction::ResetTwoFactor, a).await,
        Command::Admin {
            command: AdminCommand::BackfillDirectory { store },
        } => {
            return match admin_cli::backfill_directory(&store).await {
                Ok(line) => {
                    println!("{line}");
                    std::process::ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("ciam: {e}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
        Command::Admin {
            command:
                AdminCommand::LogoutNotices {
                    user_id,
                    sid,
                    public_url,
                    store,
                },
        } => {
            return match logout_cli::notice_lines(&user_id, &sid, &public_url, &store).await {
                Ok(lines) => {
                    for line in lines {
                        println!("{line}");
                    }
                    std::process::ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("ciam: {e}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
        Command::Admin {
            command: AdminCommand::OrgSuggestions { prefix, store },
        } => {
            return match admin_cli::org_suggestion_lines(&prefix, &store).await {
                Ok(lines) => {
                    for line in lines {
                        println!("{line}");
                    }
                    std::process::ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("ciam: {e}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
        Command::Admin {
            command: AdminCommand::Roles { store },
        } => {
            return match admin_cli::role_lines(&store).await {
                Ok(lines) => {
                    for line in lines {
                        println!("{line}");
                    }
                    std::process::ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("ciam: {e}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
        Command::Admin {
            command:
                AdminCommand::OrgCreate {
                    owner,
                    name_en,
                    name_zh,
                    reason,
                    store,
                },
        } => {
            let names = (name_zh.as_deref(), name_en.as_str());
            return match admin_cli::org_create(&owner, names, &reason, &store).await {
                Ok(org_id) => {
                    println!("{org_id}");
                    std::process::ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("ciam: {e}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
        Command::Admin {
            command: AdminCommand::OrgSignIn(a),
        } => return ciam_local::org_sign_in_cli::command(&a).await,
        Command::Admin {
            command: AdminCommand::Grant { mail, role, store },
        } => {
            return match grant_role(&mail, role, &store).await {
                Ok(user_id) => {
                    println!("{mail} ({user_id}) is an {}", role.as_str());
                    std::process::ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("ciam: {e}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
        Command::Admin {
            command:
                AdminCommand::Audit {
                    command: AuditCommand::Export { args, store },
                },
        } => {
            return match audit_cli::export(&args, &store).await {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("ciam: {e}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
        Command::Admin {
            command: AdminCommand::Apps { command },
        } => {
            return match ciam_local::apps_cli::run(command).await {
                Ok(json) => {
                    println!("{json}");
                    std::process::ExitCode::SUCCESS
                }
                Err(ciam_local::apps_cli::Failure::Refused(body)) => {
                    eprintln!("{body}");
                    std::process::ExitCode::from(2)
                }
                Err(ciam_local::apps_cli::Failure::Other(e)) => {
                    eprintln!("ciam: {e}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
        Command::Admin {
            command: AdminCommand::Webhooks { command },
        } => {
            return match ciam_local::webhooks_cli::run(command).await {
                Ok(lines) => {
                    for l in lines {
                        println!("{l}");
                    }
                    std::process::ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("ciam: {e}");
                    std::process::ExitCode::FAILURE
                }
            };
        }
        Command::Serve {
            addr,
            store,
            no_dev_outbox,
            no_console,
            web_dist,
            internal_domains,
            public_url,
            passkey_rp_id,
            passkey_origins,
            staff_issuer,
            staff_client_id,
            staff_client_secret,
            staff_mfa_acr,
            oidc_key_version,
            webhooks_strict,
            audit_retention_days,
            mail,
            sms,
            client_limits,
            cell,
        } => ServeOptions {
            sms,
            client_limits,
            cell,
            webhooks_strict,
            staff_mfa_acr,
            addr,
            store,
            dev_outbox: !no_dev_outbox,
            console: !no_console,
            web_dist,
            internal_domains,
            public_url,
            passkey_rp_id,
            passkey_origins,
            oidc_key_version,
            audit_retention_days,
            smtp: match mail.smtp_config(std::env::var("CIAM_SMTP_PASSWORD").ok()) {
                Ok(smtp) => smtp,
                Err(e) => {
                    eprintln!("ciam: {e}");
                    return std::process::ExitCode::FAILURE;
                }
            },
            federation: match ciam_local::federation_from_env(|k| std::env::var(k).ok()) {
                Ok(f) => f,
                Err(e) => {
                    eprintln!("ciam: {e}");
                    return std::process::ExitCode::FAILURE;
                }
            },
            staff_idp: match ciam_core::staff::StaffIdp::from_parts(
                staff_issuer,
                staff_client_id,
                staff_client_secret,
            ) {
                Ok(idp) => idp,
                Err(e) => {
                    eprintln!("ciam: {e}");
                    return std::process::ExitCode::FAILURE;
                }
            },
        },
    };
    match serve(opts).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ciam: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
