//! `ciam`: the whole product on one port, on the embedded store by default.

use ciam_local::{grant_admin, serve, ServeOptions, StoreChoice};
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

#[derive(Subcommand)]
enum Command {
    /// Serve every /ciam/v1 route and the web app on one port.
    Serve {
        #[arg(long, default_value = "127.0.0.1:8080", env = "CIAM_ADDR")]
        addr: SocketAddr,
        /// Data folder: the SQLite file and the generated secret key.
        #[arg(long, default_value = "./.ciam", env = "CIAM_DATA")]
        data: PathBuf,
        #[arg(long, value_enum, default_value = "sqlite", env = "CIAM_STORE")]
        store: StoreChoice,
        /// DynamoDB table (with --store dynamodb).
        #[arg(long, default_value = "ciam", env = "CIAM_TABLE")]
        table: String,
        /// DynamoDB endpoint, e.g. http://127.0.0.1:8000 for DynamoDB Local.
        #[arg(long, env = "CIAM_DYNAMODB_ENDPOINT")]
        endpoint: Option<String>,
        /// Do not serve GET /ciam/dev/outbox (codes are still printed on the console).
        #[arg(long)]
        no_dev_outbox: bool,
        /// The built web app.
        #[arg(long, default_value = "web/dist", env = "CIAM_WEB_DIST")]
        web_dist: PathBuf,
        /// Mail domains of internal staff, comma-separated.
        #[arg(long, env = "CIAM_INTERNAL_DOMAINS", value_delimiter = ',')]
        internal_domains: Option<Vec<String>>,
    },
    /// Manage roles of existing accounts.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Makes the account with this mail an admin of the partner-app registry.
    Grant {
        mail: String,
        #[arg(long, default_value = "./.ciam", env = "CIAM_DATA")]
        data: PathBuf,
        #[arg(long, value_enum, default_value = "sqlite", env = "CIAM_STORE")]
        store: StoreChoice,
        #[arg(long, default_value = "ciam", env = "CIAM_TABLE")]
        table: String,
        #[arg(long, env = "CIAM_DYNAMODB_ENDPOINT")]
        endpoint: Option<String>,
    },
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
    let (addr, data, store, table, endpoint, no_dev_outbox, web_dist, internal_domains) =
        match command {
            Command::Admin {
                command:
                    AdminCommand::Grant {
                        mail,
                        data,
                        store,
                        table,
                        endpoint,
                    },
            } => {
                return match grant_admin(&mail, data, store, table, endpoint).await {
                    Ok(user_id) => {
                        println!("{mail} ({user_id}) is an admin");
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
                data,
                store,
                table,
                endpoint,
                no_dev_outbox,
                web_dist,
                internal_domains,
            } => (
                addr,
                data,
                store,
                table,
                endpoint,
                no_dev_outbox,
                web_dist,
                internal_domains,
            ),
        };
    let opts = ServeOptions {
        addr,
        data,
        store,
        table,
        endpoint,
        dev_outbox: !no_dev_outbox,
        web_dist,
        internal_domains,
    };
    match serve(opts).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ciam: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
