//! `POST /client-errors` (spec §7, error reports) and `GET /version` (spec §9, the release
//! string). Both are anonymous and touch neither the table nor a key.
//!
//! A report becomes one structured log line, `client error`, with `kind`, `version` and
//! `route` (a metric filter counts them) plus the sanitised `error` and `stack`. The web app
//! already strips query strings, tokens and personal data; the server does it again, because
//! anyone can post here: control and invisible characters go, lengths are capped, query
//! strings, mail addresses, long digit runs and token-like strings are replaced.

use crate::error::ApiError;
use crate::extract::Json;
use crate::reply::Reply;
use axum::http::StatusCode;
use ciam_core::{Error, Reason};
use serde::{Deserialize, Serialize};

/// The release string (spec §9): "release." and the workspace version, which equals the
/// version in package.json (a test keeps them equal).
pub const RELEASE: &str = concat!("release.", env!("CARGO_PKG_VERSION"));

/// What the web app reports: an uncaught error, an unhandled rejection, or an error a route
/// showed on its error screen.
const KINDS: &[&str] = &["error", "rejection", "route"];

const VERSION_MAX: usize = 40;
const ROUTE_MAX: usize = 200;
const MESSAGE_MAX: usize = 300;
const STACK_MAX: usize = 2000;

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub(super) struct Report {
    /// The release string of the build, e.g. release.0.1.0 (40 characters kept).
    version: String,
    /// An uncaught error, an unhandled promise rejection, or an error shown on a route's error
    /// screen.
    #[cfg_attr(feature = "openapi", schemars(extend("enum" = KINDS)))]
    kind: String,
    /// The error's message, sanitised (300 characters kept).
    message: String,
    /// The page's path, without query string or fragment (200 characters kept).
    route: String,
    /// The stack, sanitised, script URLs without query strings (2000 characters kept).
    #[serde(default)]
    stack: Option<String>,
}

/// The release this server runs.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub(super) struct Version {
    /// "release." and the package version.
    #[cfg_attr(feature = "openapi", schemars(example = &"release.0.1.0"))]
    version: &'static str,
}

/// The release version string
///
/// "release." and the package version (package.json version = Cargo workspace version), the string
/// the web app shows in its footer and sends with error reports.
///
/// Reasons: none.
///
/// `GET /version`: `{"version": "release.<package version>"}`. Round trips: 0.
pub(super) async fn version() -> Reply<Version> {
    Reply(Version { version: RELEASE })
}

/// Report an error of the web app
///
/// Anonymous. The web app posts one small, sanitised report per distinct error (at most 5 per page
/// load, none from a build made with CIAM_ERROR_REPORTS=off): no query strings, tokens or personal
/// data. The server strips control and invisible characters, caps each field, removes query
/// strings, mail addresses, numbers of six digits or more and token-like strings again, and writes
/// one log line `client error` (fields kind, version, route, error, stack). Nothing is stored. Body
/// at most 8 KiB (else 400 INVALID_PARAMETER on `body`). See docs/api.md.
///
/// Reasons: none.
///
/// `POST /client-errors`: logs the report and answers 204 (the source's). SERVICE_UNAVAILABLE: a
/// body still streaming at the request's deadline (`middleware::deadline`). Round trips: 0.
pub(super) async fn report(Json(r): Json<Report>) -> Result<StatusCode, ApiError> {
    let Some(kind) = KINDS.iter().copied().find(|k| *k == r.kind) else {
        return Err(ApiError(Error::field(
            Reason::INVALID_PARAMETER,
            "kind",
            "kind 只能是 error、rejection 或 route",
            "kind is one of error, rejection, route",
        )));
    };
    let version: String = clean(&r.version, "")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
        .take(VERSION_MAX)
        .collect();
    let route = route_path(&r.route);
    let message = cap(&scrub(&clean(&r.message, " ")), MESSAGE_MAX);
    let stack = cap(
        &scrub(&clean(r.stack.as_deref().unwrap_or(""), " | ")),
        STACK_MAX,
    );
    tracing::warn!(
        kind = kind,
        version = version.as_str(),
        route = route.as_str(),
        error = message.as_str(),
        stack = stack.as_str(),
        "client error"
    );
    Ok(StatusCode::NO_CONTENT)
}

/// The path alone: no query string, no fragment, scrubbed and capped; "/" if it is not a path.
fn route_path(raw: &str) -> String {
    let path = clean(raw, "")
        .split(['?', '#'])
        .next()
        .unwrap_or("")
        .to_owned();
    if !path.starts_with('/') {
        return "/".to_owned();
    }
    cap(&scrub(&path), ROUTE_MAX)
}

/// Control and invisible characters (the ones names may not hold: zero-width, bidi controls,
/// separators, tags, fillers; `ciam_core::validate::invisible`) removed; a line break becomes `newline` (a stack keeps its
/// frames apart with " | "), every other control character a space.
fn clean(text: &str, newline: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\n' {
            out.push_str(newline);
        } else if c.is_control() {
            out.push(' ');
        } else if !ciam_core::validate::invisible(c) {
            out.push(c);
        }
    }
    out
}

/// At most `max` characters.
fn cap(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

fn delimiter(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\'' | '`' | '(' | ')' | '<' | '>' | ',' | ';' | '[' | ']' | '{' | '}'
        )
}

/// Query strings and URL fragments cut; mail addresses, numbers of six digits or more (phone
/// numbers, codes; not a stack's `:line:column`), JSON Web Tokens (whole) and token-like strings
/// replaced. The rules and the web app's are checked against `tests/scrub-vectors.json`.
pub fn scrub(text: &str) -> String {
    let mut words = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars() {
        if delimiter(c) {
            words.push_str(&scrub_word(&word));
            word.clear();
            words.push(c);
        } else {
            word.push(c);
        }
    }
    words.push_str(&scrub_word(&word));
    scrub_numbers(&words)
}

fn scrub_word(word: &str) -> String {
    let word = word.split('?').next().unwrap_or("");
    let word = if word.contains("://") {
        word.split('#').next().unwrap_or("")
    } else {
        word
    };
    if let Some((local, domain)) = word.split_once('@') {
        if !local.is_empty() && domain.contains('.') {
            return "[email]".to_owned();
        }
    }
    let jwts_out = scrub_jwts(word);
    let word = jwts_out.as_str();
    // Runs of base64url/hex characters long enough to be a secret and mixing letters and
    // digits: a session token is a 32-digit hex id and 43 base64url characters; identifiers in
    // code rarely mix them at that length.
    let mut out = String::with_capacity(word.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        let digits = run.chars().any(|c| c.is_ascii_digit());
        let letters = run.chars().any(|c| c.is_ascii_alphabetic());
        if run.len() >= 20 && digits && letters {
            out.push_str("[token]");
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in word.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

fn base64url(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// JSON Web Tokens and other JOSE values, replaced whole by "[token]": `eyJ` (the base64url of
/// `{"`) at the start of a base64url run, then that run and every `.`-joined run after it (at
/// least one dot). Each segment alone may be too short or too plain to look like a secret (the
/// payload of `{"sub":"ann"}` is 18 letters), so they go together.
fn scrub_jwts(word: &str) -> String {
    let chars: Vec<char> = word.chars().collect();
    let mut out = String::with_capacity(word.len());
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i..].starts_with(&['e', 'y', 'J'])
            && !i.checked_sub(1).is_some_and(|p| base64url(chars[p]));
        if starts {
            let mut j = i;
            while j < chars.len() && base64url(chars[j]) {
                j += 1;
            }
            let mut dots = 0;
            while j < chars.len() && chars[j] == '.' {
                dots += 1;
                j += 1;
                while j < chars.len() && base64url(chars[j]) {
                    j += 1;
                }
            }
            if dots > 0 {
                out.push_str("[token]");
                i = j;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

/// Digit sequences (with single spaces or hyphens between digits, an optional leading '+') of
/// six digits or more become "[number]", unless they follow ':' (a stack's line and column),
/// '.' (an address or version) or a letter (an identifier).
fn scrub_numbers(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let starts = (c.is_ascii_digit()
            || (c == '+' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            && !prev.is_some_and(|p| p.is_ascii_alphanumeric() || matches!(p, ':' | '.' | '_'));
        if !starts {
            out.push(c);
            i += 1;
            continue;
        }
        let mut j = i + usize::from(c == '+');
        let mut digits = 0;
        while j < chars.len() {
            if chars[j].is_ascii_digit() {
                digits += 1;
                j += 1;
            } else if matches!(chars[j], ' ' | '-')
                && chars.get(j + 1).is_some_and(char::is_ascii_digit)
                && chars[j - 1].is_ascii_digit()
            {
                j += 1;
            } else {
                break;
            }
        }
        if digits >= 6 {
            out.push_str("[number]");
        } else {
            out.extend(&chars[i..j]);
        }
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The web app's scrubber passes the same vectors (web/src/lib/scrub.test.ts).
    #[test]
    fn the_shared_vectors_are_scrubbed_as_the_web_app_scrubs_them() {
        let vectors: Vec<(String, String)> =
            serde_json::from_str(include_str!("../../tests/scrub-vectors.json")).unwrap();
        assert!(vectors.len() > 10);
        for (input, output) in vectors {
            assert_eq!(scrub(&input), output, "{input}");
        }
    }

    #[test]
    fn control_and_invisible_characters_never_reach_the_log() {
        assert_eq!(clean("a\u{202E}b\u{200B}c\td\ne", " | "), "abc d | e");
        // Separators, tag characters and fillers too: what names may not hold is never logged.
        assert_eq!(
            clean("a\u{2028}b\u{2029}c\u{E0041}d\u{3164}e\u{FFF9}f", ""),
            "abcdef"
        );
    }

    #[test]
    fn routes_keep_only_their_path() {
        assert_eq!(
            route_path("/en-US/passport/signin?serviceUrl=https://a#b"),
            "/en-US/passport/signin"
        );
        assert_eq!(route_path("https://evil.example/x"), "/");
        assert_eq!(route_path(&"/ab".repeat(200)).chars().count(), ROUTE_MAX);
    }
}
