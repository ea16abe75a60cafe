//! The route table (`ciam_api::ROUTES`, plus the embedded page of `ciam_api::PAGES`) is the source of truth: every
//! route has exactly one template function that runs the one binary `bootstrap` with its id in
//! `CIAM_ROUTE`, with the same method and path, and no more; every function shares one build.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_api::{BASE, PAGES, ROUTES};
use ciam_lambdas::NO_TABLE;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The only routes that send mail or SMS: codes, and notices to an account's old address.
const SENDS_MESSAGES: &[&str] = &[
    "auth_identity",
    "auth_mail",
    "auth_phone",
    "auth_deactivation",
];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn template_text() -> String {
    let path = crate_dir().join("../../template.yaml");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One resource of template.yaml: its type and its `key: value` lines (keys without their
/// indentation, in order), enough for the flat facts checked here.
#[derive(Debug, Default)]
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

/// The one build every function shares (docs/operations.md §10): the same Metadata block, so
/// `sam build` groups all functions into one build definition and compiles `bootstrap` once.
const BUILD_METADATA: &str = "    Metadata:
      BuildMethod: rust-cargolambda
      BuildProperties:
        Binary: bootstrap
";

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
    for (name, res) in resources(&template_text()) {
        if res.kind != "AWS::Serverless::Function" {
            continue;
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
fn every_route_has_one_template_function_and_all_share_one_build() {
    let ids: BTreeSet<String> = ciam_lambdas::route_ids().map(str::to_owned).collect();
    assert_eq!(
        ids.len(),
        ROUTES.len() + PAGES.len(),
        "route ids must be unique (page ids are not route ids)"
    );
    for page in PAGES {
        let id = page.id;
        assert!(ids.contains(id), "{id}: the binary serves every page");
    }

    // The one binary: nothing else in src/bin, no per-route main.
    let bins: Vec<String> = std::fs::read_dir(crate_dir().join("src").join("bin"))
        .expect("src/bin")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(bins, vec!["bootstrap.rs"], "src/bin holds the one binary");

    let functions = functions_by_route();
    let served: BTreeSet<String> = functions.keys().cloned().collect();
    assert_eq!(
        served, ids,
        "template.yaml must have exactly one function per route id (CIAM_ROUTE)"
    );
    for (id, f) in &functions {
        assert_eq!(
            metadata_block(&f.text),
            BUILD_METADATA,
            "{id}: every function has the same build Metadata (one sam build)"
        );
        for per_function in ["CodeUri", "Handler", "Runtime", "Architectures"] {
            assert!(
                f.values(per_function).is_empty(),
                "{id}: {per_function} comes from Globals only (one build definition)"
            );
        }
    }

    for route in ROUTES {
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
        assert_eq!(
            f.values("ApiId"),
            vec!["!Ref Api"],
            "{}: the one HTTP API",
            route.id
        );
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
    text.contains("!Ref TableReadPolicy") || text.contains("!Ref TableWritePolicy")
}

#[test]
fn routes_that_never_touch_the_table_get_no_access_to_it() {
    let functions = functions_by_route();
    for route in ROUTES {
        let text = &functions[route.id].text;
        let has_table = has_table_policy(text) || text.contains("dynamodb:");
        let needs_table = !NO_TABLE.contains(&route.id);
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
    let functions = functions_by_route();
    for route in ROUTES {
        let text = &functions[route.id].text;
        let sends = SENDS_MESSAGES.contains(&route.id);
        assert_eq!(text.contains("ses:SendEmail"), sends, "{}: SES", route.id);
        assert_eq!(text.contains("sns:Publish"), sends, "{}: SNS", route.id);
        assert!(
            !text.contains("SESCrudPolicy"),
            "{}: SES too broad",
            route.id
        );
    }
}
