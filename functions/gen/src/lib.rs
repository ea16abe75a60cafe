//! The route table (`ciam_api::ROUTES`, `CEREMONY_ROUTES`, `PAGES`) written into the files that
//! cannot read Rust. Each is a region between two marker lines in a hand-written file, or a whole
//! generated file:
//!
//! - template.yaml `functions`: one `AWS::Serverless::Function` per row, the own log group of
//!   each sign-in row (the others log to the shared `FunctionLogs`), and the canary alarm of
//!   each gradual row (`Lambda::gradual`: alias `live`, CodeDeploy `DeploymentPreference`), and
//!   the one pre-traffic check of them all (`hook.rs`);
//! - template.yaml `api-settings`: the HTTP APIs' default throttles and access log
//!   (`API_SETTINGS`, the console's API has the same);
//! - template.yaml `route-settings`: the HTTP API's per-route throttles;
//! - infra/console.yaml, whole: the console's functions and API in a stack of their own, and
//!   template.yaml's `ConsoleStack` that nests it (console.rs);
//! - template.yaml `sign-in-metrics`: the `Ciam/SignIn`, `Ciam/SignInFailures` and `Ciam/SignInUnavailable` metric filters
//!   on the log group of every sign-in row;
//! - template.yaml `dashboard-hashing`: the dashboard's concurrency lines of the argon2 functions;
//! - docs/operations.md `actions`: the least-privilege action table (§2);
//! - infra/routes.json: every function's facts, for the infra tests and tools.
//!
//! `ciam-gen` writes them; `ciam-gen --check` (in `npm test`) fails when a committed file
//! differs from what the table generates. Why a generator rather than CloudFormation's
//! `Fn::ForEach`: docs/operations.md §2 "The template is generated".

use ciam_api::{Auth, Binary, Lambda};
use ciam_core::federation::PROVIDERS;
pub mod audit;
pub mod cn;
mod cn_edge;
pub mod console;
pub mod federation;
pub mod function;
pub mod hook;
pub mod openapi;
pub mod policy;
pub mod roles;
pub mod tables;
pub mod waf;
pub mod webhooks;

pub use function::{is_console, is_org, Home};
pub use tables::routes_json;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The cell a stack is for (docs/multi-region.md §5.1, "The cn stack"): `Global` is template.yaml
/// in the `aws` partition; `Cn` is infra/cn.yaml in `aws-cn` (Beijing, Ningxia), the same
/// functions and roles but for what China lacks (function URLs, SES, SNS SMS: cn.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Global,
    Cn,
}

/// One function of the template: a route of either table, or a page.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The route id (`CIAM_ROUTE`).
    pub id: String,
    pub method: String,
    /// As API Gateway routes it (`/ciam/v1/...` for a route).
    pub path: String,
    pub binary: Binary,
    /// The function's description, from the operation's `summary` in docs/openapi.json.
    pub summary: String,
    pub sign_in: Option<String>,
    /// Who may call it (pages: anyone).
    pub auth: Auth,
    pub lambda: Lambda,
    /// No route: another function invokes it through the Lambda API (`ciam_api::INTERNAL`);
    /// `method` and `path` are empty.
    pub internal: bool,
}

impl Function {
    /// The resource names' stem: the id in CamelCase (`auth_login_password` ->
    /// `AuthLoginPassword`, so `AuthLoginPasswordFunction` and `AuthLoginPasswordLogs`).
    pub fn stem(&self) -> String {
        self.id
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            })
            .collect()
    }

    pub fn logical_id(&self) -> String {
        format!("{}Function", self.stem())
    }

    /// The log group the function writes to: its own `<Stem>Logs` for a sign-in row (the
    /// generated sign-in metric filters read it, and it is kept `SignInLogRetentionDays`), else
    /// the shared `FunctionLogs` (every line names its route: the `lambda` span of
    /// functions/lambdas/src/binary.rs). One group per function would spend 66-91 of
    /// CloudFormation's 500 resources (docs/operations.md §7, "Resource budget").
    pub fn log_group(&self) -> String {
        if self.sign_in.is_some() {
            format!("{}Logs", self.stem())
        } else {
            SHARED_LOGS.to_owned()
        }
    }

    fn route_key(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// The HTTP APIs' throttles and access log (template.yaml's `Api` and infra/console.yaml's
/// `ConsoleApi`, under `Properties`): across all clients, per route, a ceiling that protects the
/// table and the bill (per-client limits are the web ACL's, infra/waf.yaml, which sees the
/// viewer's address); one JSON line per request. `ip` is the address that connected to API
/// Gateway: a CloudFront edge for every legitimate request, so any other address is a bypass
/// attempt (answered 403). The viewer's own address is in the CloudFront logs (LogsBucket).
pub const API_SETTINGS: &str = "      DefaultRouteSettings:
        ThrottlingBurstLimit: 200
        ThrottlingRateLimit: 100
      AccessLogSettings:
        DestinationArn: !GetAtt ApiAccessLogs.Arn
        Format: >-
          {\"requestId\":\"$context.requestId\",\"ip\":\"$context.identity.sourceIp\",
          \"route\":\"$context.routeKey\",\"status\":\"$context.status\",
          \"latency\":\"$context.responseLatency\",\"integrationLatency\":\"$context.integrationLatency\",
          \"integrationError\":\"$context.integrationErrorMessage\",\"time\":\"$context.requestTime\",
          \"protocol\":\"$context.protocol\",\"responseLength\":\"$context.responseLength\"}
";

/// The log group of every function without a sign-in (hand-written in template.yaml).
pub const SHARED_LOGS: &str = "FunctionLogs";

/// The alias CodeDeploy shifts on a gradual row (`AutoPublishAlias`).
pub const ALIAS: &str = "live";

/// Every function: `ROUTES`, then `CEREMONY_ROUTES`, then the pages, with the summaries of
/// their operations in `openapi` (docs/openapi.json). A route without an operation or summary
/// is an error naming it.
pub fn functions(openapi: &Value) -> Result<Vec<Function>, String> {
    let mut out = Vec::new();
    for (table, binary) in [
        (ciam_api::ROUTES, Binary::Bootstrap),
        (ciam_api::CEREMONY_ROUTES, Binary::Passkeys),
        (ciam_api::DOMAIN_ROUTES, Binary::Domains),
    ] {
        for r in table {
            let summary = openapi["paths"][r.path][r.method.to_ascii_lowercase()]["summary"]
                .as_str()
                .ok_or_else(|| {
                    format!(
                        "{}: docs/openapi.json has no summary for {} {} (docs/adding-a-route.md step 1)",
                        r.id, r.method, r.path
                    )
                })?;
            out.push(Function {
                id: r.id.to_owned(),
                method: r.method.to_owned(),
                path: format!("{}{}", ciam_api::BASE, r.path),
                binary,
                summary: summary.to_owned(),
                sign_in: r.sign_in.map(str::to_owned),
                auth: r.auth,
                lambda: r.lambda,
                internal: false,
            });
        }
    }
    for p in ciam_api::PAGES {
        out.push(Function {
            id: p.id.to_owned(),
            method: p.method.to_owned(),
            path: p.path.to_owned(),
            binary: Binary::Bootstrap,
            summary: p.summary.to_owned(),
            sign_in: None,
            auth: Auth::Public,
            lambda: p.lambda,
            internal: false,
        });
    }
    for i in ciam_api::INTERNAL {
        out.push(Function {
            id: i.id.to_owned(),
            method: String::new(),
            path: String::new(),
            binary: Binary::Decoder,
            summary: i.summary.to_owned(),
            sign_in: None,
            auth: Auth::Public,
            lambda: i.lambda,
            internal: true,
        });
    }
    for i in ciam_api::WEBHOOK_FUNCTIONS {
        out.push(Function {
            id: i.id.to_owned(),
            method: String::new(),
            path: String::new(),
            binary: Binary::Webhooks,
            summary: i.summary.to_owned(),
            sign_in: None,
            auth: Auth::Public,
            lambda: i.lambda,
            internal: true,
        });
    }
    Ok(out)
}

/// A generated region of a hand-written file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    Functions,
    RouteSettings,
    SignInMetrics,
    DashboardHashing,
    Webhooks,
    ApiSettings,
    Actions,
    /// infra/waf.yaml's `Paths` map (`waf::render_paths`).
    WafPaths,
    /// The providers' template parameters, secrets and secret outputs (`federation.rs`).
    FederationParameters,
    FederationSecrets,
    FederationOutputs,
}

impl Region {
    pub const TEMPLATE: [Region; 9] = [
        Region::FederationParameters,
        Region::FederationSecrets,
        Region::FederationOutputs,
        Region::ApiSettings,
        Region::RouteSettings,
        Region::Functions,
        Region::Webhooks,
        Region::SignInMetrics,
        Region::DashboardHashing,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Region::Functions => "functions",
            Region::RouteSettings => "route-settings",
            Region::SignInMetrics => "sign-in-metrics",
            Region::DashboardHashing => "dashboard-hashing",
            Region::Webhooks => "webhooks",
            Region::ApiSettings => "api-settings",
            Region::Actions => "actions",
            Region::WafPaths => "waf-paths",
            Region::FederationParameters => "federation-parameters",
            Region::FederationSecrets => "federation-secrets",
            Region::FederationOutputs => "federation-outputs",
        }
    }

    /// The marker lines (without indentation): YAML comments, or HTML comments in Markdown.
    fn markers(self) -> (String, String) {
        let name = self.name();
        match self {
            Region::Actions => (
                format!("<!-- BEGIN GENERATED {name}: from the route table by ciam-gen (npm run gen); do not edit -->"),
                format!("<!-- END GENERATED {name} -->"),
            ),
            _ => (
                format!("# BEGIN GENERATED {name}: from the route table by ciam-gen (npm run gen); do not edit"),
                format!("# END GENERATED {name}"),
            ),
        }
    }

    /// The region's lines, from the table and (for the console's stack, which copies its
    /// `Globals`) the text of the file it goes into.
    pub fn render(self, fns: &[Function], text: &str) -> String {
        self.render_in(fns, text, Cell::Global)
    }

    /// The region's lines in `cell`'s stack.
    pub fn render_in(self, fns: &[Function], text: &str, cell: Cell) -> String {
        match self {
            Region::Functions => render_functions(fns, text, cell),
            Region::ApiSettings => API_SETTINGS.to_owned(),
            Region::RouteSettings => tables::render_route_settings(fns),
            Region::SignInMetrics => tables::render_sign_in_metrics(fns),
            Region::DashboardHashing => tables::render_dashboard_hashing(fns),
            Region::Webhooks => webhooks::render_in(cell),
            Region::Actions => tables::render_actions(fns),
            // `generate` calls `waf::render_paths` itself and fails on its error; rendered
            // through here, the error stands where the map would be, and cfn-lint refuses it.
            Region::WafPaths => {
                waf::render_paths(fns).unwrap_or_else(|e| format!("# ciam-gen: {e}\n"))
            }
            Region::FederationParameters => federation::render_parameters(PROVIDERS),
            Region::FederationSecrets => federation::render_secrets(PROVIDERS),
            Region::FederationOutputs => federation::render_outputs(PROVIDERS),
        }
    }
}

/// `text` with the lines between `region`'s markers replaced by `content`. The markers stay;
/// an error names a missing or repeated marker.
pub fn splice(text: &str, region: Region, content: &str) -> Result<String, String> {
    let (begin, end) = region.markers();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let find = |marker: &str| -> Result<usize, String> {
        let at: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim() == marker)
            .map(|(i, _)| i)
            .collect();
        match at.as_slice() {
            [i] => Ok(*i),
            [] => Err(format!("no marker line `{marker}`")),
            _ => Err(format!(
                "the marker line `{marker}` is there {} times",
                at.len()
            )),
        }
    };
    let (b, e) = (find(&begin)?, find(&end)?);
    if e < b {
        return Err(format!("`{end}` comes before `{begin}`"));
    }
    let mut out: String = lines[..=b].concat();
    out.push_str(content);
    out.push_str(&lines[e..].concat());
    Ok(out)
}

/// The number of lines of `text` outside its generated regions (markers included in the
/// hand-written part): the measure of docs/operations.md §2, at most 1,500 for template.yaml.
pub fn hand_written_lines(text: &str) -> usize {
    let mut inside = false;
    let mut count = 0;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("# END GENERATED ") {
            inside = false;
        }
        if !inside {
            count += 1;
        }
        if t.starts_with("# BEGIN GENERATED ") {
            inside = true;
        }
    }
    count
}

/// A YAML double-quoted scalar (JSON's string syntax is a subset of it).
pub(crate) fn quoted(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

fn render_functions(fns: &[Function], template: &str, cell: Cell) -> String {
    // The shared roles first (one per permission set, roles.rs), but those only the console's
    // functions run as: they are in its stack. The webhook functions have a region of their own
    // (`webhooks.rs`): their roles, queues and event sources are not a route's. Then the
    // console's stack (console.rs), in place of its functions.
    let roles = roles::shared_roles_in(fns, cell)
        .map(|r| {
            let main: Vec<_> = r.into_iter().filter(|r| !r.console_only).collect();
            roles::render(&main)
        })
        .unwrap_or_else(|e| format!("  # {e}\n"));
    roles
        + &fns
            .iter()
            .filter(|f| f.binary != Binary::Webhooks && !is_console(f) && !is_org(f))
            .map(|f| function::render_function(f, &Home::main_in(f, cell)))
            .collect::<String>()
        + &hook::render(fns)
        + &console::render_application_in(fns, template, cell)
        + &console::render_nest_application_in(&console::ORGS, fns, template, cell)
}

/// The repository root (this crate is functions/gen).
pub fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Every generated file: its path under `root`, and its content as the table makes it from the
/// file's current text (hand-written parts kept).
pub fn generate(root: &Path, fns: &[Function]) -> Result<Vec<(PathBuf, String)>, String> {
    let read = |rel: &str| {
        let path = root.join(rel);
        std::fs::read_to_string(&path)
            .map(|t| (path.clone(), t))
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    roles::shared_roles(fns)?;
    let mut out = Vec::new();
    let (path, mut text) = read("template.yaml")?;
    for region in Region::TEMPLATE {
        text = splice(&text, region, &region.render(fns, &text))
            .map_err(|e| format!("template.yaml: {e}"))?;
    }
    out.push((
        root.join(console::PATH),
        console::render_stack(fns, &text).map_err(|e| format!("{}: {e}", console::PATH))?,
    ));
    out.push((
        root.join(cn::CONSOLE_PATH),
        cn::render_console(fns, &text).map_err(|e| format!("{}: {e}", cn::CONSOLE_PATH))?,
    ));
    let orgs = &console::ORGS;
    out.push((
        root.join(orgs.path),
        console::render_nest_in(orgs, fns, &text, Cell::Global)
            .map_err(|e| format!("{}: {e}", orgs.path))?,
    ));
    out.push((
        root.join(cn::ORG_PATH),
        cn::render_nest(orgs, fns, &text).map_err(|e| format!("{}: {e}", cn::ORG_PATH))?,
    ));
    out.push((
        root.join(cn::PATH),
        cn::render(fns, &text).map_err(|e| format!("{}: {e}", cn::PATH))?,
    ));
    out.push((path, text));
    let (path, text) = read("docs/operations.md")?;
    let text = splice(&text, Region::Actions, &Region::Actions.render(fns, &text))
        .map_err(|e| format!("docs/operations.md: {e}"))?;
    out.push((path, text));
    let (path, text) = read("infra/waf.yaml")?;
    let paths = waf::render_paths(fns).map_err(|e| format!("infra/waf.yaml: {e}"))?;
    let text =
        splice(&text, Region::WafPaths, &paths).map_err(|e| format!("infra/waf.yaml: {e}"))?;
    out.push((path, text));
    out.push((root.join("infra/routes.json"), routes_json(fns)));
    out.push((root.join(openapi::DOCUMENT), openapi::render(root)?));
    Ok(out)
}

/// The functions of the committed table, with the summaries of the document it generates
/// (`openapi::document`: the handlers' doc comments).
pub fn table_functions(root: &Path) -> Result<Vec<Function>, String> {
    functions(&openapi::document(root)?)
}
