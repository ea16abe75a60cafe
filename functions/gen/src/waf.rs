//! The web ACL's path patterns (infra/waf.yaml's generated `waf-paths` region): every path a rule
//! of the web ACL compares is written here from the route rows, never by hand in the YAML. The
//! rules read them with `!FindInMap [Paths, Regex|Exact, <Name>]`, so a new route row with a `Waf`
//! facet (a new sign-in provider's start and callback, say) is counted by its rule, served on the
//! console host when it should be, and kept under WAF's 512-character regex limit, with no edit of
//! infra/waf.yaml (docs/federation-design.md §1.5; infra/tests/test_template_waf.py evaluates the
//! rules on every row of infra/routes.json).
//!
//! The rules compare the path after URL_DECODE, NORMALIZE_PATH and LOWERCASE, so every pattern is
//! lower case. A rule that counts one path without parameters compares it exactly (a byte match,
//! 2 WCU: `Exact`); one that counts several compares a regular expression (3 WCU: `Regex`) built as
//! a trie of path segments, so a shared prefix is written once.

use ciam_api::route::Waf;

use crate::Function;

/// WAF's limit on the length of one regular expression.
pub const REGEX_LIMIT: usize = 512;

/// The per-route rules, each with its name in the `Paths` map (the rule's name without `Rate`).
const RULES: [(Waf, &str); 7] = [
    (Waf::SignIn, "SignIn"),
    (Waf::Codes, "Codes"),
    (Waf::Register, "Register"),
    (Waf::Captcha, "Captcha"),
    (Waf::OidcAuthorize, "OidcAuthorize"),
    (Waf::OidcToken, "OidcToken"),
    (Waf::ClientErrors, "ClientErrors"),
];

/// The routes the console host answers besides its own (`/admin...`) and every sign-in row: what
/// an operator's browser calls to send a code and prove itself (captcha, code, backup code), to
/// prove itself again (TOTP, passkey), to read and end its session, and the files every screen
/// loads (apps by language, avatars, client error reports). Route ids, not paths: the paths come
/// from the rows.
const CONSOLE_HOST_ROUTES: [&str; 11] = [
    "auth_identity",
    "auth_unlock_code",
    "auth_captcha",
    "auth_location",
    "auth_info_get",
    "auth_logout",
    "auth_totp_verify",
    "auth_reauth_passkey_options",
    "auth_reauth_passkey",
    "app_language",
    "avatar_get",
];

/// The one other route the console host answers: client error reports (any screen sends them).
const CONSOLE_HOST_REPORTS: &str = "client_error";

/// The console's own paths: the API (`/ciam/v1/admin...`) and the web app's screens
/// (`/{lang}/admin...`, and `/admin...` or `/zh/admin...`, which the web app sends on).
const CONSOLE: &str = "(?:ciam/v1/|[^/]+/)?admin(?:/|$)";

/// What the console host serves that is not a route: the web app's files (`/assets/...`, files at
/// the root) and the screens of signing in and out (`/{lang}`, `/{lang}/passport/signin`,
/// `/{lang}/logout`).
const CONSOLE_HOST_FILES: &str = "assets/|[^/]*$|[^/]+/(?:passport/signin|logout)?/?$";

/// Every path a function answers: the API and the embedded sign-in page (`/{lang}/embedded/...`).
const BLANKET: &str = "^/(?:ciam/|[^/]+/embedded/)";

/// The route whose body may exceed the managed group's size limit: the avatar upload.
const AVATAR_UPLOAD: &str = "auth_avatar";

/// The region's lines: the `Paths` map of the web ACL's template.
pub fn render_paths(fns: &[Function]) -> Result<String, String> {
    let mut regex: Vec<(String, String)> = Vec::new();
    let mut exact: Vec<(String, String)> = Vec::new();
    let mut sign_in_codes_register = Vec::new();
    for (waf, name) in RULES {
        let paths = paths_of(fns, |f| f.lambda.waf == waf);
        if paths.is_empty() {
            return Err(format!(
                "infra/waf.yaml: no route row names the rule {name}"
            ));
        }
        if matches!(waf, Waf::SignIn | Waf::Codes | Waf::Register) {
            sign_in_codes_register.extend(paths.iter().cloned());
        }
        match paths.as_slice() {
            [one] if !one.contains('{') => exact.push((name.to_owned(), one.clone())),
            _ => regex.push((name.to_owned(), path_regex(&paths))),
        }
    }
    regex.push((
        "SignInCodesRegister".to_owned(),
        path_regex(&sign_in_codes_register),
    ));
    regex.push(("Blanket".to_owned(), BLANKET.to_owned()));
    regex.push(("ConsoleDoor".to_owned(), format!("^/{CONSOLE}")));
    regex.push(("ConsoleHostOnly".to_owned(), console_host_regex(fns)?));
    let avatar = paths_of(fns, |f| f.id == AVATAR_UPLOAD);
    match avatar.as_slice() {
        [one] => exact.push(("AvatarUpload".to_owned(), one.clone())),
        _ => return Err(format!("no route {AVATAR_UPLOAD}")),
    }
    if let Some((name, r)) = regex.iter().find(|(_, r)| r.len() > REGEX_LIMIT) {
        return Err(format!(
            "infra/waf.yaml: the {name} pattern is {} characters, over WAF's limit of {REGEX_LIMIT}",
            r.len()
        ));
    }
    let mut out = String::from("Mappings:\n  Paths:\n    Regex:\n");
    for (name, r) in &regex {
        out.push_str(&format!("      {name}: {}\n", crate::quoted(r)));
    }
    out.push_str("    Exact:\n");
    for (name, p) in &exact {
        out.push_str(&format!("      {name}: {}\n", crate::quoted(p)));
    }
    Ok(out)
}

/// Sign-in rows the console host does not serve: the customer providers' shared redemption
/// (docs/federation-design.md §1.5; an operator signs in there with staff's own routes).
const OFF_CONSOLE_HOST: &[&str] = &[
    "auth_login_federation",
    // The company's own sign-in (an organization's connection) is a customer's, never an
    // operator's.
    "auth_org_start",
    "auth_org_callback",
];

/// A start or callback row of a provider that signs customers in through links (WeChat, ...):
/// an operator signs in on the console host with staff's own routes only (§1.5).
fn customer_provider(f: &Function) -> bool {
    f.lambda
        .fed
        .provider()
        .is_some_and(|p| p.facts().link == ciam_core::federation::LinkRule::ProvePhone)
}

/// The console host's list: its own paths, every sign-in row (but `OFF_CONSOLE_HOST` and the
/// customer providers' rows), the routes of
/// `CONSOLE_HOST_ROUTES` and the web app's files.
fn console_host_regex(fns: &[Function]) -> Result<String, String> {
    for id in CONSOLE_HOST_ROUTES.iter().chain([&CONSOLE_HOST_REPORTS]) {
        if !fns.iter().any(|f| f.id == *id) {
            return Err(format!(
                "the console host's list names {id}, which no row has"
            ));
        }
    }
    let paths = paths_of(fns, |f| {
        (f.lambda.waf == Waf::SignIn
            && !OFF_CONSOLE_HOST.contains(&f.id.as_str())
            && !customer_provider(f))
            || CONSOLE_HOST_ROUTES.contains(&f.id.as_str())
            || f.id == CONSOLE_HOST_REPORTS
    });
    let api = trie(&paths);
    Ok(format!(
        "^/(?:{CONSOLE}|{}/?$|{CONSOLE_HOST_FILES})",
        api.render()
    ))
}

/// The lower-cased paths of the rows `keep` chooses, each once, in the table's order.
fn paths_of(fns: &[Function], keep: impl Fn(&Function) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in fns.iter().filter(|f| !f.internal && !f.path.is_empty()) {
        let p = f.path.to_lowercase();
        if keep(f) && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// An anchored expression matching exactly these paths, each with or without one trailing slash.
pub fn path_regex(paths: &[String]) -> String {
    format!("^/{}/?$", trie(paths).render())
}

/// A path segment trie: the children in the order first seen.
#[derive(Default)]
struct Node {
    children: Vec<(String, Node)>,
    end: bool,
}

fn trie(paths: &[String]) -> Node {
    let mut root = Node::default();
    for p in paths {
        let mut node = &mut root;
        for seg in p.trim_matches('/').split('/') {
            let at = match node.children.iter().position(|(s, _)| s == seg) {
                Some(i) => i,
                None => {
                    node.children.push((seg.to_owned(), Node::default()));
                    node.children.len() - 1
                }
            };
            node = &mut node.children[at].1;
        }
        node.end = true;
    }
    root
}

impl Node {
    /// The alternatives below this node, as one expression.
    fn render(&self) -> String {
        let alts: Vec<String> = self
            .children
            .iter()
            .map(|(seg, child)| {
                let rest = match (child.children.is_empty(), child.end) {
                    (true, _) => String::new(),
                    (false, true) => format!("(?:/{})?", child.render()),
                    (false, false) => format!("/{}", child.render()),
                };
                format!("{}{rest}", segment(seg))
            })
            .collect();
        match alts.as_slice() {
            [one] => one.clone(),
            _ => format!("(?:{})", alts.join("|")),
        }
    }
}

/// One segment: a `{parameter}` matches any one segment; other text stands for itself.
fn segment(seg: &str) -> String {
    if seg.starts_with('{') && seg.ends_with('}') {
        return "[^/]+".to_owned();
    }
    seg.chars()
        .map(|c| match c {
            '.' | '+' | '*' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' | '^' | '$' | '\\' => {
                format!("\\{c}")
            }
            c => c.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(ps: &[&str]) -> Vec<String> {
        ps.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn a_shared_prefix_is_written_once_and_a_path_inside_another_is_optional() {
        let r = path_regex(&paths(&[
            "/ciam/v1/auth/login/password",
            "/ciam/v1/auth/login/passkey",
            "/ciam/v1/auth/login/passkey/options",
            "/ciam/v1/auth/staff/start",
        ]));
        assert_eq!(
            r,
            "^/ciam/v1/auth/(?:login/(?:password|passkey(?:/options)?)|staff/start)/?$"
        );
    }

    #[test]
    fn parameters_match_one_segment_and_dots_are_literal() {
        let r = path_regex(&paths(&["/ciam/v1/app/language/{language}", "/a.b"]));
        assert_eq!(r, "^/(?:ciam/v1/app/language/[^/]+|a\\.b)/?$");
    }
}
