//! `ciam-fakes [--port N] [--domain HOST]...`: the four platform fakes as a process, for
//! `ciam serve` and the Chromium tests. Prints the bound port alone on the first line of stdout
//! (so `--port 0` callers learn it), then serves until killed.

use ciam_fakes::{Fakes, DEFAULT_DOMAINS};
use std::io::Write;
use tokio::net::TcpListener;

struct Args {
    port: u16,
    domains: Vec<String>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut out = Args {
        port: 0,
        domains: Vec::new(),
    };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--port" => {
                let v = args.next().ok_or("--port needs a value")?;
                out.port = v.parse().map_err(|_| format!("--port: not a port: {v}"))?;
            }
            "--domain" => out.domains.push(args.next().ok_or("--domain needs a host")?),
            "-h" | "--help" => {
                return Err("usage: ciam-fakes [--port N] [--domain HOST]... (default port 0: any; default domains 127.0.0.1, localhost)".into())
            }
            other => return Err(format!("unknown argument: {other}")),
        }
    }
    Ok(out)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    // The arguments after the program's own name.
    let mut argv = std::env::args();
    argv.next();
    let args = match parse(argv) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return std::process::ExitCode::from(2);
        }
    };
    let domains: Vec<&str> = if args.domains.is_empty() {
        DEFAULT_DOMAINS.to_vec()
    } else {
        args.domains.iter().map(String::as_str).collect()
    };
    let listener = match TcpListener::bind(("127.0.0.1", args.port)).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ciam-fakes: cannot listen on 127.0.0.1:{}: {e}", args.port);
            return std::process::ExitCode::from(1);
        }
    };
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(args.port);
    let app = Fakes::with_domains(&domains).router();
    let mut stdout = std::io::stdout();
    // The caller reads this line to learn the port; without it nothing can use the fakes.
    if writeln!(stdout, "{port}")
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return std::process::ExitCode::from(1);
    }
    match axum::serve(listener, app).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ciam-fakes: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
