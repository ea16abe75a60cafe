//! `ciam admin audit export --from D --to D [--format csv|jsonl] [--out FILE]`: the console's
//! audit log of a range of at most 31 days, the same export as `GET /admin/audit?format=`
//! (`ciam_core::console::export`), read a day at a time from the store `ciam serve` would
//! open and written to stdout or a file as it goes. For a range the Lambda answer cannot carry
//! (API Gateway's 6 MB, docs/operations.md).

use crate::{open_store, StoreOptions};
use ciam_core::console::audit::Filter;
use ciam_core::console::export::{Export, Format};
use ciam_core::SystemClock;
use std::path::PathBuf;
use std::sync::Arc;

/// What to export (the `ciam admin audit export` arguments).
#[derive(Clone, Debug, clap::Args)]
pub struct ExportArgs {
    /// The first day, yyyy-mm-dd (UTC).
    #[arg(long)]
    pub from: String,
    /// The last day, yyyy-mm-dd (UTC); at most 31 days after the first.
    #[arg(long)]
    pub to: String,
    /// csv or jsonl.
    #[arg(long, default_value = "csv", value_parser = parse_format)]
    pub format: Format,
    /// Write here instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Only this operator's entries (user id).
    #[arg(long)]
    pub actor: Option<String>,
    /// Only entries on this account or app (user id, app id).
    #[arg(long)]
    pub target: Option<String>,
    /// Only this action (e.g. app.rotateSecret).
    #[arg(long)]
    pub action: Option<String>,
}

fn parse_format(s: &str) -> Result<Format, String> {
    Format::parse(s).ok_or_else(|| format!("{s}: use csv or jsonl"))
}

/// Writes the export; errors are the message to print.
pub async fn export(args: &ExportArgs, opts: &StoreOptions) -> Result<(), String> {
    let filter = Filter {
        from: args.from.clone(),
        to: args.to.clone(),
        actor: args.actor.clone(),
        target: args.target.clone(),
        action: args.action.clone(),
    };
    let message = |e: ciam_core::Error| {
        let what = match &e.message {
            Some(ciam_core::Message::Text { en, .. }) => (*en).to_owned(),
            Some(ciam_core::Message::Raw(m)) => m.clone(),
            Some(ciam_core::Message::OtherCell(_) | ciam_core::Message::Connection(_)) | None => {
                e.reason.message(ciam_core::Lang::EnUs).to_owned()
            }
        };
        match (e.field, e.cause) {
            (Some(f), _) => format!("--{f}: {what}"),
            (None, Some(c)) => format!("{what} ({c})"),
            (None, None) => what,
        }
    };
    let plan = Export::new(filter, args.format).map_err(message)?;
    let store = open_store(opts, Arc::new(SystemClock)).await?;
    match &args.out {
        Some(path) => {
            let file = std::fs::File::create(path)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            let mut out = std::io::BufWriter::new(file);
            plan.write_to(store.as_ref(), &mut out)
                .await
                .map_err(message)
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            plan.write_to(store.as_ref(), &mut out)
                .await
                .map_err(message)
        }
    }
}
