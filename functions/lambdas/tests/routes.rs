//! The route tables are the source of truth: every route of `ciam_api::ROUTES` (plus the
//! embedded page of `ciam_api::PAGES`) has exactly one template function that runs the binary
//! `bootstrap`, every route of `ciam_api::CEREMONY_ROUTES` one that runs `passkeys`, each with
//! its id in `CIAM_ROUTE`, the same method and path, and no more; the functions of one binary
//! share one build (one per binary, docs/operations.md §10).

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_api::{
    all_routes, Table, BASE, CEREMONY_ROUTES, DOMAIN_ROUTES, INTERNAL, PAGES, ROUTES,
    WEBHOOK_FUNCTIONS,
};
use ciam_lambdas::{Binary, Bootstrap, Domains, Passkeys};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn template_text() -> String {
    let path = crate_dir().join("../../template.yaml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The console's own stack (issue 30 item 6): its functions and the roles only they run as.
fn console_text() -> String {
    let path = crate_dir().join("../../infra/console.yaml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The organizations' own stack ("My company", `/ciam/v1/org/...`): its functions.
fn org_text() -> String {
    let path = crate_dir().join("../../infra/org.yaml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One resource of template.yaml: its type and its `key: value` lines (keys without their
/// indentation, in order), enough for the flat facts checked here.
#[derive(Clone, Debug, Default)]
struct Resource {
    kind: String,
    text: String,
    pairs: Vec<(String, String)>,
}

impl Resource {
    fn values(&self, key: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// The `Resources:` section, resource by resource. Resource names sit at indentation 2.
fn resources(yaml: &str) -> BTreeMap<String, Resource> {
    let mut out: BTreeMap<String, Resource> = BTreeMap::new();
    let mut in_resources = false;
    let mut current: Option<String> = None;
    for raw in yaml.lines() {
        let line = raw.split(" #").next().unwrap_or("").trim_end();
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        if indent == 0 {
            in_resources = line == "Resources:";
            current = None;
            continue;
        }
        if !in_resources {
            continue;
        }
        if indent == 2 {
            let name = line.trim().trim_end_matches(':').to_owned();
            out.entry(name.clone()).or_default();
            current = Some(name);
            continue;
        }
        let Some(res) = current.as_ref().and_then(|n| out.get_mut(n)) else {
            continue;
        };
        res.text.push_str(line);
        res.text.push('\n');
        let item = line.trim().trim_start_matches("- ");
        if let Some((k, v)) = item.split_once(':') {
            let (k, v) = (k.trim().to_owned(), v.trim().trim_matches('"').to_owned());
            if indent == 4 && k == "Type" {
                res.kind = v.clone();
            }
            res.pairs.push((k, v));
        }
    }
    out
}

/// The build the functions of one binary share (docs/operations.md §10): the same Metadata
/// block, so `sam build` groups them into one build definition and links `binary` once.
fn build_metadata(binary: &str) -> String {
    format!(
        "    Metadata:
      BuildMethod: rust-cargolambda
      BuildProperties:
        Binary: {binary}
"
    )
}

/// The binary whose table holds `id` (a route or page id).
fn binary_of(id: &str) -> &'static str {
    if CEREMONY_ROUTES.iter().any(|r| r.id == id) {
        Passkeys::NAME
    } else if DOMAIN_ROUTES.iter().any(|r| r.id == id) {
        Domains::NAME
    } else if WEBHOOK_FUNCTIONS.iter().any(|f| f.id == id) {
        ciam_api::Binary::Webhooks.name()
    } else if INTERNAL.iter().any(|f| f.id == id) {
        ciam_api::Binary::Decoder.name()
    } else if id == ciam_lambdas::hook::ID {
        ciam_lambdas::hook::BINARY
    } else {
        Bootstrap::NAME
    }
}

/// The `Metadata:` block of a resource, as written (indentation kept).
fn metadata_block(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        if indent == 4 {
            inside = line.trim() == "Metadata:";
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Template functions by the route they serve (their `CIAM_ROUTE`).
fn functions_by_route() -> BTreeMap<String, Resource> {
    let mut by_route = BTreeMap::new();
    // Both stacks' resources: their names are distinct (infra/tests check it).
    let mut all = resources(&template_text());
    all.extend(resources(&console_text()));
    all.extend(resources(&org_text()));
    for (name, res) in &all {
        if res.kind != "AWS::Serverless::Function" {
            continue;
        }
        // What the function may do is its role's (issue 30: one generated role per permission
        // set, `Role: !GetAtt <Role>.Arn`, or in the console's stack `!Ref <Role>Arn` for a role
        // of the main stack): the role's text is read with the function's.
        let mut res = res.clone();
        let role = res.values("Role").first().and_then(|r| {
            r.strip_prefix("!GetAtt ")
                .and_then(|r| r.strip_suffix(".Arn"))
                .or_else(|| r.strip_prefix("!Ref ").and_then(|r| r.strip_suffix("Arn")))
                .map(str::to_owned)
        });
        if let Some(role) = role.and_then(|r| all.get(&r)) {
            res.text.push_str(&role.text);
        }
        let routes = res.values(ciam_lambdas::ROUTE_VAR);
        assert_eq!(routes.len(), 1, "{name} must set CIAM_ROUTE exactly once");
        let route = routes[0].to_owned();
        let previous = by_route.insert(route.clone(), res);
        assert!(previous.is_none(), "two functions serve the route {route}");
    }
    by_route
}

#[test]
fn every_route_has_one_template_function_running_the_binary_of_its_table() {
    let ids: BTreeSet<String> = ciam_lambdas::route_ids().map(str::to_owned).collect();
    assert_eq!(
        ids.len(),
        ROUTES.len() + CEREMONY_ROUTES.len() + DOMAIN_ROUTES.len() + PAGES.len(),
        "route ids must be unique across both tables (page ids are not route ids)"
    );
    for page in PAGES {
        let id = page.id;
        assert!(ids.contains(id), "{id}: bootstrap serves every page");
    }

    // The six binaries: nothing else in src/bin, no per-route main.
    let mut bins: Vec<String> = std::fs::read_dir(crate_dir().join("src").join("bin"))
        .expect("src/bin")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    bins.sort();
    assert_eq!(
        bins,
        vec![
            format!("{}.rs", Bootstrap::NAME),
            format!("{}.rs", ciam_api::Binary::Decoder.name()),
            format!("{}.rs", Domains::NAME),
            format!("{}.rs", ciam_lambdas::hook::BINARY),
            format!("{}.rs", Passkeys::NAME),
            format!("{}.rs", ciam_api::Binary::Webhooks.name()),
        ],
        "src/bin holds the six binaries"
    );

    let functions = functions_by_route();
    let served: BTreeSet<String> = functions.keys().cloned().collect();
    // The functions with no route: the avatar decoder (its own binary, `decoder`) and the key
    // distributor (`bootstrap`, distributor.rs).
    let mut expected = ids.clone();
    expected.extend(INTERNAL.iter().map(|i| i.id.to_owned()));
    expected.extend(WEBHOOK_FUNCTIONS.iter().map(|i| i.id.to_owned()));
    expected.insert(ciam_lambdas::distributor::DISTRIBUTOR.to_owned());
    // And the pre-traffic check of the gradual functions (its own binary, `hook`).
    expected.insert(ciam_lambdas::hook::ID.to_owned());
    assert_eq!(
        served, expected,
        "template.yaml must have exactly one function per route id (CIAM_ROUTE), the internal \
         functions, the key distributor and the pre-traffic check"
    );
    for internal in INTERNAL {
        let f = &functions[internal.id];
        assert!(
            f.values("Type").iter().all(|t| *t != "HttpApi"),
            "{}: no route",
            internal.id
        );
        assert!(
            f.values("Policies").is_empty(),
            "{}: no policy",
            internal.id
        );
        assert!(
            f.values("FunctionUrlConfig").is_empty(),
            "{}: no URL",
            internal.id
        );
    }
    let mut builds = BTreeSet::new();
    for (id, f) in &functions {
        let metadata = metadata_block(&f.text);
        assert_eq!(
            metadata,
            build_metadata(binary_of(id)),
            "{id}: a function has the build Metadata of its table's binary"
        );
        builds.insert(metadata);
        for per_function in ["CodeUri", "Handler", "Runtime", "Architectures"] {
            assert!(
                f.values(per_function).is_empty(),
                "{id}: {per_function} comes from Globals only (one build definition per binary)"
            );
        }
    }
    assert_eq!(builds.len(), 6, "exactly six build definitions: {builds:?}");
    for w in WEBHOOK_FUNCTIONS {
        let f = &functions[w.id];
        assert!(
            f.values("Type").iter().all(|t| *t != "HttpApi"),
            "{}: no route",
            w.id
        );
    }

    for route in all_routes() {
        let f = &functions[route.id];
        assert_eq!(
            f.values("Type").iter().filter(|t| **t == "HttpApi").count(),
            1,
            "{}: exactly one HttpApi event",
            route.id
        );
        assert_eq!(
            f.values("Method"),
            vec![route.method],
            "{}: method",
            route.id
        );
        let path = format!("{BASE}{}", route.path);
        assert_eq!(f.values("Path"), vec![path.as_str()], "{}: path", route.id);
        // The console's routes are on its own HTTP API (infra/console.yaml), "My company"'s
        // and the company's own sign-in (`/auth/org/`) on the organizations' (infra/org.yaml),
        // the rest on the main one.
        let api = if matches!(route.auth, ciam_api::Auth::Console(_)) {
            "!Ref ConsoleApi"
        } else if route.path.starts_with("/org/") || route.path.starts_with("/auth/org/") {
            "!Ref OrgApi"
        } else {
            "!Ref Api"
        };
        assert_eq!(f.values("ApiId"), vec![api], "{}: its HTTP API", route.id);
    }
    for page in PAGES {
        let id = page.id;
        let f = &functions[id];
        assert_eq!(f.values("Method"), vec![page.method], "{id}: method");
        assert_eq!(f.values("Path"), vec![page.path], "{id}: path");
        assert_eq!(
            f.values("ApiId"),
            vec!["!Ref Api"],
            "{id}: the one HTTP API"
        );
        assert!(
            f.text.contains("dynamodb:GetItem"),
            "{id}: reads the app item"
        );
        assert!(
            !has_table_policy(&f.text),
            "{id}: never writes, reads one item"
        );
        assert!(
            f.text.contains("/index.html"),
            "{id}: reads index.html only"
        );
        assert!(!f.text.contains("ses:SendEmail") && !f.text.contains("sns:Publish"));
    }
}

/// The table's route classes are the template's managed policies TableReadPolicy and
/// TableWritePolicy (docs/operations.md §2); SAM's broad policy templates are not used.
fn has_table_policy(text: &str) -> bool {
    text.contains("!Ref TableReadPolicy")
        || text.contains("!Ref TableWritePolicy")
        || text.contains("!Ref TableAuditWritePolicy")
}

#[test]
fn routes_that_never_touch_the_table_get_no_access_to_it() {
    let functions = functions_by_route();
    for route in all_routes() {
        let text = &functions[route.id].text;
        let has_table = has_table_policy(text) || text.contains("dynamodb:");
        let needs_table = route.lambda.table != Table::None;
        assert_eq!(has_table, needs_table, "{}: table access", route.id);
        for broad in [
            "DynamoDBCrudPolicy",
            "DynamoDBReadPolicy",
            "dynamodb:*",
            "dynamodb:Scan",
        ] {
            assert!(!text.contains(broad), "{}: {broad}", route.id);
        }
    }
}

#[test]
fn only_the_routes_that_send_codes_or_notices_may_send_mail_or_sms() {
    // Codes, notices to an account's old address, and the console's notices of what support
    // did to an account (and the notices of a linked way in added or removed), and the codes
    // that prove an organization's domain: the rows say so, and only these.
    let senders: Vec<&str> = all_routes()
        .filter(|r| r.lambda.messages)
        .map(|r| r.id)
        .collect();
    assert_eq!(
        senders,
        [
            "auth_identity",
            "auth_mail",
            "auth_phone",
            "auth_deactivation",
            "org_invite",
            "org_domain_code",
            "auth_identities_confirm",
            "auth_identity_delete",
            "admin_account_unlock",
            "admin_account_end_sessions",
            "admin_account_reset_two_factor",
            "admin_account_send_reset_code",
            "admin_account_suspend",
            "admin_account_reactivate",
            "admin_account_reset_passkeys",
            "admin_account_unlink_identity",
            "admin_account_identity",
            "admin_org_invite",
            "admin_org_domain_code",
        ]
    );
    let functions = functions_by_route();
    for route in all_routes() {
        let text = &functions[route.id].text;
        let (mail, sms) = (route.lambda.messages, route.lambda.sms);
        assert_eq!(text.contains("ses:SendEmail"), mail, "{}: SES", route.id);
        assert_eq!(text.contains("sns:Publish"), sms, "{}: SNS", route.id);
        // Every route that sends sends both (codes go to a mail or a phone); only the webhook
        // delivery, which is no route, sends mail alone.
        assert_eq!(mail, sms, "{}", route.id);
        assert!(
            !text.contains("SESCrudPolicy"),
            "{}: SES too broad",
            route.id
        );
    }
}

/// `bootstrap` must never reach the ceremony table (its handlers link the WebAuthn crate): its
/// main names `Bootstrap` only, and `Bootstrap` serves `ROUTES`. The link itself is checked by
/// `npm run build:lambda` (`grep -c webauthn_rp` on the built binaries).
#[test]
fn each_binary_names_its_own_table_only() {
    let main = |name: &str| {
        let path = crate_dir()
            .join("src")
            .join("bin")
            .join(format!("{name}.rs"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let code = |text: String| -> String {
        text.lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let bootstrap = code(main(Bootstrap::NAME));
    assert!(bootstrap.contains("run_from_env::<ciam_lambdas::Bootstrap>()"));
    for never in [
        "Passkeys",
        "CEREMONY_ROUTES",
        "passkey",
        "decoder",
        "IMAGE_DECODER",
        "Domains",
        "DOMAIN_ROUTES",
    ] {
        assert!(!bootstrap.contains(never), "bootstrap.rs names {never}");
    }
    let decoder = code(main(ciam_api::Binary::Decoder.name()));
    assert!(decoder.contains("ciam_lambdas::decoder::run_from_env()"));
    for never in ["Bootstrap", "Passkeys", "run_from_env::<"] {
        assert!(!decoder.contains(never), "decoder.rs names {never}");
    }
    let passkeys = code(main(Passkeys::NAME));
    assert!(passkeys.contains("run_from_env::<ciam_lambdas::Passkeys>()"));
    assert!(
        !passkeys.contains("Bootstrap"),
        "passkeys.rs names Bootstrap"
    );
    let ids = |t: &[ciam_api::RouteDef]| t.iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(
        ids(Bootstrap::ROUTES),
        ids(ROUTES),
        "bootstrap serves ROUTES"
    );
    assert_eq!(ids(Passkeys::ROUTES), ids(CEREMONY_ROUTES));
    assert_eq!(ids(Domains::ROUTES), ids(DOMAIN_ROUTES));
    let domains = code(main(Domains::NAME));
    assert!(domains.contains("run_from_env::<ciam_lambdas::Domains>()"));
    for never in ["Bootstrap", "Passkeys"] {
        assert!(!domains.contains(never), "domains.rs names {never}");
    }
    assert!(Passkeys::PAGES.is_empty(), "pages run bootstrap");
}
