//! `ciam admin webhooks list|add|remove|rotate|replay --app <appId> ...` and `refan --user
//! --since`: the registry's webhook endpoints from the command line, through the functions the
//! `/admin/apps/{appId}/webhooks` routes call, as a local admin (`cli:<os user>`), each change's
//! audit entry (reason `command line`) in its transaction. A replay queues the deliveries in the
//! store; the
//! running `ciam serve`'s worker sends them at its next wake-up (or its next start).

use crate::admin_cli::{ciam, operator};
use crate::StoreOptions;
use ciam_core::console::audit::AuditAction;
use ciam_core::console::webhooks::Audit;
use ciam_core::webhooks::{self, queue, EndpointFields};
use ciam_core::{Lang, OsEntropy};

#[derive(Clone, Debug, clap::Subcommand)]
pub enum WebhooksCommand {
    /// Every endpoint of the app, one a line: id, enabled/disabled, events, URL.
    List {
        #[arg(long)]
        app: String,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Adds an endpoint; prints its id and its secret (shown this once).
    Add {
        #[arg(long)]
        app: String,
        #[arg(long)]
        url: String,
        /// Event kinds, comma-separated (user.updated, session.ended, ...).
        #[arg(long, value_delimiter = ',', required = true)]
        events: Vec<String>,
        #[arg(long, default_value = "")]
        description: String,
        /// Production rules: https only (by default, as `ciam serve`, http to localhost,
        /// 127.0.0.1 and [::1] is allowed too).
        #[arg(long)]
        webhooks_strict: bool,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Removes an endpoint.
    Remove {
        #[arg(long)]
        app: String,
        endpoint: String,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// A new secret (printed once); the previous one keeps signing for 24 hours.
    Rotate {
        #[arg(long)]
        app: String,
        endpoint: String,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Queues again one event (`--event`) or those of a time range (`--from`, `--to`, Unix
    /// seconds) of the endpoint's delivery log. Prints the events queued, at most 500 a call,
    /// and, when the cap cut the range, `next <unix seconds>` (run it again with `--from` there).
    Replay {
        #[arg(long)]
        app: String,
        endpoint: String,
        #[arg(long)]
        event: Option<String>,
        #[arg(long)]
        from: Option<i64>,
        #[arg(long)]
        to: Option<i64>,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Fans out again every event of a user since a time (a fan-out that failed): the
    /// deliveries by today's consents and endpoints are queued (`ciam serve` sends them at its
    /// next wake-up or start; against DynamoDB, the table's stream hands them to the fan-out
    /// function). Prints the events, then a line `deliveries <n>` and, when the cap cut the
    /// span, `next <unix seconds>` (run it again from there).
    Refan {
        #[arg(long)]
        user: String,
        /// Unix seconds, or an RFC 3339 time (2026-12-01T08:00:00Z).
        #[arg(long)]
        since: String,
        #[command(flatten)]
        store: StoreOptions,
    },
    /// Prints the `webhook-signature` Ciam sends for the body on stdin (no store: for checking
    /// a receiver's verification, e.g. against the Standard Webhooks reference library).
    Sign {
        #[arg(long)]
        secret: String,
        #[arg(long)]
        id: String,
        #[arg(long)]
        timestamp: i64,
    },
}

fn message(e: &ciam_core::Error) -> String {
    let mut m = e.reason.code().to_owned();
    m.push_str(": ");
    m.push_str(e.reason.message(Lang::EnUs));
    if let Some(f) = &e.field {
        m.push_str(&format!(" ({f})"));
    }
    m
}

fn facts() -> ciam_core::console::audit::RequestFacts {
    ciam_core::console::audit::RequestFacts {
        request_id: hex::encode(ciam_core::random::<16>(&OsEntropy)),
        ip: None,
        device: Some("ciam admin (command line)".to_owned()),
    }
}

/// `--since`: Unix seconds or an RFC 3339 time.
pub fn parse_since(s: &str) -> Result<i64, String> {
    if let Ok(n) = s.trim().parse::<i64>() {
        return Ok(n);
    }
    rfc3339(s.trim()).ok_or_else(|| format!("--since {s:?}: not Unix seconds nor an RFC 3339 time"))
}

/// `yyyy-mm-ddThh:mm:ss[.fraction](Z|±hh:mm)` as Unix seconds (the fraction dropped).
fn rfc3339(s: &str) -> Option<i64> {
    let (date, rest) = s.split_once(['T', 't', ' '])?;
    let day = ciam_core::days::parse_day("since", date).ok()?;
    let num = |p: &str| {
        (p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse::<i64>().ok())
            .flatten()
    };
    let (time, offset) = match rest.strip_suffix(['Z', 'z']) {
        Some(t) => (t, 0),
        None => {
            let at = rest.rfind(['+', '-'])?;
            let (t, o) = rest.split_at(at);
            let (sign, o) = o.split_at(1);
            let (oh, om) = o.split_once(':')?;
            let secs = num(oh)? * 3600 + num(om)? * 60;
            (t, if sign == "-" { -secs } else { secs })
        }
    };
    let time = time.split_once('.').map_or(time, |(t, _)| t);
    let mut hms = time.split(':');
    let (h, m, sec) = (num(hms.next()?)?, num(hms.next()?)?, num(hms.next()?)?);
    if hms.next().is_some() || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    Some(day * 86_400 + h * 3600 + m * 60 + sec - offset)
}

/// Runs one command; answers the lines to print.
pub async fn run(cmd: WebhooksCommand) -> Result<Vec<String>, String> {
    let op = operator();
    let facts = facts();
    match cmd {
        WebhooksCommand::Sign {
            secret,
            id,
            timestamp,
        } => {
            let bytes = webhooks::sign::secret_bytes(&secret)
                .ok_or_else(|| "--secret: not a whsec_<base64> secret".to_owned())?;
            let mut body = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut body)
                .map_err(|e| format!("stdin: {e}"))?;
            Ok(vec![webhooks::sign::signature(
                &bytes, &id, timestamp, &body,
            )])
        }
        WebhooksCommand::List { app, store } => {
            let c = ciam(&store).await?;
            let list = webhooks::list(&c, &app).await.map_err(|e| message(&e))?;
            Ok(list
                .iter()
                .map(|e| {
                    let state = if e.enabled { "enabled" } else { "disabled" };
                    format!(
                        "{}\t{state}\t{}\t{}",
                        e.endpoint_id,
                        e.events.join(","),
                        e.url
                    )
                })
                .collect())
        }
        WebhooksCommand::Add {
            app,
            url,
            events,
            description,
            webhooks_strict,
            store,
        } => {
            let mut c = ciam(&store).await?;
            c.config.webhooks_local_http = !webhooks_strict;
            let f = EndpointFields {
                url: Some(url),
                events: Some(events),
                description: Some(description),
                ..EndpointFields::default()
            };
            let audit =
                Audit::new(&c, &op, &app, "command line", &facts).map_err(|e| message(&e))?;
            let made = webhooks::create(&c, &app, f, |id| {
                Some(audit.entry(AuditAction::WebhookCreate, id))
            })
            .await
            .map_err(|e| message(&e))?;
            Ok(vec![
                made.endpoint.endpoint_id,
                made.secret.unwrap_or_default(),
            ])
        }
        WebhooksCommand::Remove {
            app,
            endpoint,
            store,
        } => {
            let c = ciam(&store).await?;
            let audit =
                Audit::new(&c, &op, &app, "command line", &facts).map_err(|e| message(&e))?;
            let entry = audit.entry(AuditAction::WebhookDelete, &endpoint);
            webhooks::delete(&c, &app, &endpoint, Some(entry))
                .await
                .map_err(|e| message(&e))?;
            Ok(vec![format!("{endpoint} removed")])
        }
        WebhooksCommand::Rotate {
            app,
            endpoint,
            store,
        } => {
            let c = ciam(&store).await?;
            let f = EndpointFields {
                rotate_secret: true,
                ..EndpointFields::default()
            };
            let audit =
                Audit::new(&c, &op, &app, "command line", &facts).map_err(|e| message(&e))?;
            let entry = audit.entry(AuditAction::WebhookRotateSecret, &endpoint);
            let got = webhooks::update(&c, &app, &endpoint, f, Some(entry))
                .await
                .map_err(|e| message(&e))?;
            Ok(vec![got.secret.unwrap_or_default()])
        }
        WebhooksCommand::Replay {
            app,
            endpoint,
            event,
            from,
            to,
            store,
        } => {
            let what = match (event, from, to) {
                (Some(id), None, None) => queue::Replay::Event(id),
                (None, Some(from), Some(to)) => queue::Replay::Range { from, to },
                _ => return Err("give --event, or --from and --to".to_owned()),
            };
            let c = ciam(&store).await?;
            let audit =
                Audit::new(&c, &op, &app, "command line", &facts).map_err(|e| message(&e))?;
            let entry = audit.entry(AuditAction::WebhookReplay, &endpoint);
            // At most `REPLAY_CAP` events a call, as the console's button: `next N` says to
            // run it again with `--from N`.
            let got = queue::replay_page(&c, &app, &endpoint, what, Some(entry))
                .await
                .map_err(|e| message(&e))?;
            let mut lines = got.queued;
            lines.extend(got.next.map(|n| format!("next {n}")));
            Ok(lines)
        }
        WebhooksCommand::Refan { user, since, store } => {
            let since = parse_since(&since)?;
            let c = ciam(&store).await?;
            let entry = ciam_core::console::audit::Entry::new(
                &c,
                &op,
                AuditAction::WebhookRefan,
                &user,
                Some("command line"),
                Some(format!("since {since}")),
                &facts,
            )
            .put();
            let got = queue::refan(&c, &user, since, Some(entry))
                .await
                .map_err(|e| message(&e))?;
            let mut lines = got.events;
            lines.push(format!("deliveries {}", got.deliveries));
            lines.extend(got.next.map(|n| format!("next {n}")));
            Ok(lines)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_since;

    #[test]
    fn since_is_unix_seconds_or_rfc_3339() {
        assert_eq!(parse_since("1700000000"), Ok(1_700_000_000));
        assert_eq!(parse_since("2023-11-14T22:13:20Z"), Ok(1_700_000_000));
        assert_eq!(
            parse_since("2023-11-15T06:13:20.5+08:00"),
            Ok(1_700_000_000)
        );
        assert_eq!(parse_since("2023-11-14T21:13:20-01:00"), Ok(1_700_000_000));
        assert!(parse_since("yesterday").is_err());
        assert!(parse_since("2023-02-30T00:00:00Z").is_err());
    }
}
