//! The route table (`ciam_api::ROUTES`) is the source of truth: every route has exactly one
//! Lambda binary and one template function, with the same method and path, and no more.

use ciam_api::{BASE, ROUTES};
use ciam_lambdas::page::PAGE_ROUTES;
use ciam_lambdas::NO_TABLE;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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

/// Template functions by the binary they build.
fn functions_by_binary() -> BTreeMap<String, Resource> {
    let mut by_binary = BTreeMap::new();
    for (name, res) in resources(&template_text()) {
        if res.kind != "AWS::Serverless::Function" {
            continue;
        }
        let binaries = res.values("Binary");
        assert_eq!(binaries.len(), 1, "{name} must name exactly one Binary");
        let binary = binaries[0].to_owned();
        let previous = by_binary.insert(binary.clone(), res);
        assert!(
            previous.is_none(),
            "two functions build the binary {binary}"
        );
    }
    by_binary
}

fn bin_dir() -> PathBuf {
    crate_dir().join("src").join("bin")
}

fn binaries_on_disk(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect()
}

#[test]
fn every_route_has_a_binary_and_a_template_function() {
    let mut ids: BTreeSet<String> = ROUTES.iter().map(|r| r.id.to_owned()).collect();
    assert_eq!(ids.len(), ROUTES.len(), "route ids must be unique");
    // Pages served outside /ciam/v1 (the embedded sign-in) have their binary and function too.
    for (id, _, _) in PAGE_ROUTES {
        assert!(
            ids.insert((*id).to_owned()),
            "{id}: page ids are not route ids"
        );
    }

    let bins = binaries_on_disk(&bin_dir());
    assert_eq!(
        bins, ids,
        "src/bin/*.rs must be exactly one file per route id"
    );
    for id in &ids {
        let main = std::fs::read_to_string(bin_dir().join(format!("{id}.rs"))).unwrap();
        assert!(
            main.contains(&format!("ciam_lambdas::run(\"{id}\")")),
            "src/bin/{id}.rs must run its own route"
        );
    }

    let functions = functions_by_binary();
    let built: BTreeSet<String> = functions.keys().cloned().collect();
    assert_eq!(
        built, ids,
        "template.yaml must build exactly one function per route"
    );

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
        assert_eq!(
            f.values("BuildMethod"),
            vec!["rust-cargolambda"],
            "{}",
            route.id
        );
    }
    for (id, method, path) in PAGE_ROUTES {
        let f = &functions[*id];
        assert_eq!(f.values("Method"), vec![*method], "{id}: method");
        assert_eq!(f.values("Path"), vec![*path], "{id}: path");
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
    let functions = functions_by_binary();
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
    let functions = functions_by_binary();
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
