//! The operator console's own stack (issue 30 item 6): infra/console.yaml, a nested stack of
//! template.yaml (`ConsoleStack`, only when `Console` is "true") with the console's functions
//! (every `Auth::Console` row), the roles only they run as, and an HTTP API of their own
//! (`ConsoleApi`). CloudFront sends `/ciam/v1/admin/*` there (template.yaml's `console` origin),
//! so the paths do not change; the main stack keeps its resources for the product's own routes
//! (docs/operations.md §7, "Resource budget").
//!
//! The nested template is written whole from the route table and from template.yaml's `Globals`
//! (copied, so a function behaves the same in either stack): every name it refers to that it does
//! not define is a parameter of the same name, which `ConsoleStack` passes from the main stack
//! (`SessionKeySecret: !Ref SessionKeySecret`), so a function's text is the same in both places
//! but for its API and, for a role of the main stack, `!Ref <Role>Arn`. A `Globals` value that is
//! not a plain `!Ref` (the public URL's `!If`) becomes a parameter named from its variable.
//! infra/tests/conftest.py resolves those parameters to the values passed, and the infra tests read
//! the stacks as one.
//!
//! The organizations' routes (`/ciam/v1/org/...`, "My company") are a nested stack of the same
//! making ([`ORGS`]: infra/org.yaml, `OrgStack`, always on), so that the main stack keeps room
//! under its resource budget; CloudFront sends `/ciam/v1/org/*` to its API (origin `org`).

use crate::function::{is_console, is_org, render_function, Home};
use crate::{roles, Cell, Function, API_SETTINGS};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A nested stack of routes: which functions it holds, where it is, and its names.
pub struct Nest {
    /// The prefix of its resources' logical ids in it (`<name>Api`, ...) and of its
    /// `<name>Stack` in the main stack.
    pub name: &'static str,
    /// The nested template's path, relative to the repository root (`Location` in
    /// template.yaml).
    pub path: &'static str,
    /// The cn cell's, relative to infra/cn.yaml (cn.rs).
    pub cn_location: &'static str,
    /// The main stack's condition for it, if any.
    pub condition: Option<&'static str>,
    /// Which functions it holds.
    pub holds: fn(&Function) -> bool,
    /// Whether the roles only its functions run as are its own (else the main stack's).
    pub own_roles: bool,
    /// What it is, for its descriptions.
    pub what: &'static str,
    /// The paths CloudFront sends to its API.
    pub paths: &'static str,
    /// The on-call entry of its API's 5xx alarm (docs/operations.md).
    pub on_call: &'static str,
    /// Whose API the alarm names.
    pub alarm_what: &'static str,
}

/// The operator console's stack.
pub const CONSOLE: Nest = Nest {
    name: "Console",
    path: PATH,
    cn_location: CN_LOCATION,
    condition: Some("ConsoleOn"),
    holds: is_console,
    own_roles: true,
    what: "the operator console's",
    paths: "/ciam/v1/admin",
    on_call: "§8.6",
    alarm_what: "The console's",
};

/// The organizations' stack ("My company": `/ciam/v1/org/...`).
pub const ORGS: Nest = Nest {
    name: "Org",
    path: "infra/org.yaml",
    cn_location: "cn-org.yaml",
    condition: None,
    holds: is_org,
    own_roles: false,
    what: "the organizations'",
    paths: "/ciam/v1/org",
    on_call: "§8.6",
    alarm_what: "The organizations'",
};

/// Every nested stack of routes.
pub const NESTS: [&Nest; 2] = [&CONSOLE, &ORGS];

/// The nested template's path, relative to the repository root (and `Location` in template.yaml).
pub const PATH: &str = "infra/console.yaml";
/// The cn cell's (cn.rs), as infra/cn.yaml's `ConsoleStack` names it: relative to infra/cn.yaml.
pub const CN_LOCATION: &str = "cn-console.yaml";

/// The parent's stack name, for the functions' `CiamStack` tag (the Lambda alarms select the
/// stack's functions by it: a nested stack's own `AWS::StackName` is another name).
const PARENT_STACK: &str = "ParentStackName";

/// What the nested stack defines besides its functions and roles.
fn own(nest: &Nest) -> [String; 3] {
    [
        format!("{}Api", nest.name),
        format!("{}DefaultRoutePermission", nest.name),
        format!("{}Api5xxAlarm", nest.name),
    ]
}

/// The nest's functions.
fn nest_fns<'a>(nest: &'a Nest, fns: &'a [Function]) -> impl Iterator<Item = &'a Function> {
    fns.iter().filter(|f| (nest.holds)(f))
}

/// The roles the nest's functions run as: (the roles only they run as, those shared with the
/// main stack's functions).
fn nest_roles(nest: &Nest, fns: &[Function], cell: Cell) -> (Vec<roles::SharedRole>, Vec<String>) {
    let all = roles::shared_roles_in(fns, cell).unwrap_or_default();
    let used: Vec<String> = nest_fns(nest, fns).map(roles::role_name).collect();
    let (own, shared): (Vec<_>, Vec<_>) = all
        .into_iter()
        .filter(|r| used.contains(&r.name))
        .partition(|r| nest.own_roles && r.console_only);
    (own, shared.into_iter().map(|r| r.name).collect())
}

/// `template.yaml`'s `Globals:` block (up to the blank line before `Resources:`), rewritten for the
/// nested stack; and the parameters whose main-stack value is not their own name
/// (`(parameter, expression)`).
fn globals(main: &str) -> Result<(String, Vec<(String, String)>), String> {
    let start = main
        .find("\nGlobals:\n")
        .ok_or("template.yaml: no `Globals:` block")?
        + 1;
    let end = main[start..]
        .find("\n\nResources:")
        .ok_or("template.yaml: no `Resources:` after `Globals:`")?
        + start;
    let mut out = String::new();
    let mut passed = Vec::new();
    for line in main[start..end].lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let line = if let Some(rest) = trimmed.strip_prefix("CodeUri: ") {
            // Relative to the template's own folder.
            format!("{indent}CodeUri: ../{rest}")
        } else if trimmed.starts_with("CIAM_") && !trimmed.starts_with('#') {
            let (var, value) = trimmed
                .split_once(": ")
                .ok_or_else(|| format!("template.yaml Globals: `{trimmed}`"))?;
            if let Some(name) = value.strip_prefix("!Ref ").filter(|n| !n.contains(' ')) {
                format!("{indent}{var}: !Ref {name}")
            } else {
                let param = camel(var.trim_start_matches("CIAM_"));
                passed.push((param.clone(), value.to_owned()));
                format!("{indent}{var}: !Ref {param}")
            }
        } else {
            line.replace("!Ref AWS::StackName", &format!("!Ref {PARENT_STACK}"))
        };
        out.push_str(&line);
        out.push('\n');
    }
    passed.push((PARENT_STACK.to_owned(), "!Ref AWS::StackName".to_owned()));
    Ok((out, passed))
}

/// `PUBLIC_URL` -> `PublicUrl`.
fn camel(var: &str) -> String {
    var.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_string() + &c.as_str().to_ascii_lowercase())
                .unwrap_or_default()
        })
        .collect()
}

/// Every `!Ref Name` and `${Name}` in `text` whose name is not `AWS::...`.
fn refs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let word = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
    };
    for (i, _) in text.match_indices("!Ref ") {
        let rest = &text[i + 5..];
        if !rest.starts_with("AWS::") {
            out.push(word(rest));
        }
    }
    for (i, _) in text.match_indices("${") {
        let rest = &text[i + 2..];
        if !rest.starts_with("AWS::") {
            out.push(word(rest));
        }
    }
    // A `!Sub [text, {Name: value}]`'s own variables are not references.
    out.retain(|n| !n.is_empty() && !text.contains(&format!("- {n}: ")));
    out
}

/// The nested template's parts.
struct Body {
    /// Its `Globals:` block.
    globals: String,
    /// Its resources.
    resources: String,
    /// Its parameters: (name, the main stack's expression for it), sorted by name.
    params: Vec<(String, String)>,
}

/// The nested template's parts, from the table and template.yaml's text.
fn body(nest: &Nest, fns: &[Function], main: &str, cell: Cell) -> Result<Body, String> {
    let (globals, mut passed) = globals(main)?;
    let (own_roles, shared_roles) = nest_roles(nest, fns, cell);
    let mut resources = String::new();
    resources.push_str(&api(nest, fns));
    resources.push_str(
        &roles::render(&own_roles).replace("!Ref AWS::StackName", &format!("!Ref {PARENT_STACK}")),
    );
    let api_name = format!("{}Api", nest.name);
    for f in nest_fns(nest, fns) {
        let role = roles::role_name(f);
        let home = Home {
            api: &api_name,
            role: if shared_roles.contains(&role) {
                passed.push((format!("{role}Arn"), format!("!GetAtt {role}.Arn")));
                format!("!Ref {role}Arn")
            } else {
                format!("!GetAtt {role}.Arn")
            },
            cell,
        };
        resources.push_str(&render_function(f, &home));
    }
    passed.push((
        "VersionFunctionArn".to_owned(),
        "!GetAtt VersionFunction.Arn".to_owned(),
    ));
    passed.push((
        "ApiAccessLogsArn".to_owned(),
        "!GetAtt ApiAccessLogs.Arn".to_owned(),
    ));
    // Every other name it refers to and does not define: the main stack's, by the same name.
    let defined: Vec<String> = own(nest)
        .into_iter()
        .chain(own_roles.iter().map(|r| r.name.clone()))
        .chain(nest_fns(nest, fns).map(Function::logical_id))
        .collect();
    let mut params: BTreeMap<String, String> = BTreeMap::new();
    for name in refs(&globals).into_iter().chain(refs(&resources)) {
        if !defined.contains(&name) {
            params.insert(name.clone(), format!("!Ref {name}"));
        }
    }
    for (name, expr) in passed {
        params.insert(name, expr);
    }
    // `Globals` names its own parameters (e.g. `PublicUrl`), never the main stack's expression.
    Ok(Body {
        globals,
        resources,
        params: params.into_iter().collect(),
    })
}

/// The nest's HTTP API: its routes are the functions' events; what none matches goes to the
/// main stack's version function (Ciam's 404 and 405 bodies), as on the main API; its
/// functions' own throttles (the company sign-in's public rows) as its `RouteSettings`.
fn api(nest: &Nest, fns: &[Function]) -> String {
    let own: Vec<Function> = nest_fns(nest, fns).cloned().collect();
    let route_settings = crate::tables::render_route_settings_of(&own);
    let route_settings = if route_settings.is_empty() {
        String::new()
    } else {
        format!("      RouteSettings:\n{route_settings}")
    };
    let n = nest.name;
    let lower = n.to_ascii_lowercase();
    let (paths, what, on_call) = (nest.paths, nest.what, nest.on_call);
    format!(
        "  {n}Api:
    Type: AWS::Serverless::HttpApi
    Properties:
      Description: Ciam {paths}, {what} API, reached through CloudFront only (X-Ciam-Origin-Verify).
      DefinitionBody:
        openapi: \"3.0.1\"
        info:
          title: !Sub \"${{{PARENT_STACK}}}-{lower}-api\"
          version: \"1.0\"
        paths:
          $default:
            x-amazon-apigateway-any-method:
              isDefaultRoute: true
              x-amazon-apigateway-integration:
                type: aws_proxy
                httpMethod: POST
                uri: !Sub \"arn:${{AWS::Partition}}:apigateway:${{AWS::Region}}:lambda:path/2015-03-31/functions/${{VersionFunctionArn}}/invocations\"
                payloadFormatVersion: \"2.0\"
{settings}
  # The version function's permission for this API's `$default` route (SAM writes none).
  {n}DefaultRoutePermission:
    Type: AWS::Lambda::Permission
    Properties:
      Action: lambda:InvokeFunction
      FunctionName: !Ref VersionFunctionArn
      Principal: apigateway.amazonaws.com
      SourceArn: !Sub \"arn:${{AWS::Partition}}:execute-api:${{AWS::Region}}:${{AWS::AccountId}}:${{{n}Api}}/*/*\"

  {n}Api5xxAlarm:
    Type: AWS::CloudWatch::Alarm
    Properties:
      AlarmDescription: >-
        {alarm_what} HTTP API answered 5xx (function errors, timeouts, throttles).
        On-call: docs/operations.md {on_call} \"{n}Api5xxAlarm\".
      Namespace: AWS/ApiGateway
      MetricName: 5xx
      Dimensions:
        - Name: ApiId
          Value: !Ref {n}Api
      Statistic: Sum
      Period: 300
      EvaluationPeriods: 1
      Threshold: 10
      ComparisonOperator: GreaterThanOrEqualToThreshold
      TreatMissingData: notBreaching
      AlarmActions: [!Ref AlarmTopic]
      OKActions: [!Ref AlarmTopic]

",
        alarm_what = nest.alarm_what,
        settings = API_SETTINGS.replace("!GetAtt ApiAccessLogs.Arn", "!Ref ApiAccessLogsArn")
            + &route_settings
    )
}

/// `the x` -> `The x`.
fn capital(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// infra/console.yaml, whole.
pub fn render_stack(fns: &[Function], main: &str) -> Result<String, String> {
    render_stack_in(fns, main, Cell::Global)
}

/// The console's stack of `cell` (infra/console.yaml, infra/cn-console.yaml), whole.
pub fn render_stack_in(fns: &[Function], main: &str, cell: Cell) -> Result<String, String> {
    render_nest_in(&CONSOLE, fns, main, cell)
}

/// The header of a nest's template other than the console's.
fn header(nest: &Nest, cell: Cell) -> String {
    let parent = match cell {
        Cell::Global => "template.yaml",
        Cell::Cn => "infra/cn.yaml (the cn cell: its roles without SES and SNS)",
    };
    format!(
        "# GENERATED by ciam-gen from the route table (functions/gen/src/console.rs) and template.yaml's
# Globals; do not edit: npm run gen. {what} functions and HTTP API, a nested stack of
# {parent} ({name}Stack); CloudFront sends {paths}/* here. Deployed with the main
# stack, never alone. docs/operations.md §7 \"Resource budget\".
",
        what = capital(nest.what),
        name = nest.name,
        paths = nest.paths,
    )
}

/// `nest`'s stack of `cell`, whole.
pub fn render_nest_in(
    nest: &Nest,
    fns: &[Function],
    main: &str,
    cell: Cell,
) -> Result<String, String> {
    let Body {
        globals,
        resources,
        params,
    } = body(nest, fns, main, cell)?;
    if nest.name != CONSOLE.name {
        return Ok(assemble(
            nest,
            header(nest, cell),
            &globals,
            &resources,
            &params,
        ));
    }
    let head = String::from(match cell {
        Cell::Global => "# GENERATED by ciam-gen from the route table (functions/gen/src/console.rs) and template.yaml's
# Globals; do not edit: npm run gen. The operator console's functions and HTTP API, a nested stack
# of template.yaml (ConsoleStack, only when Console is \"true\"); CloudFront sends /ciam/v1/admin/*
# here. Deployed with the main stack (sam build and sam deploy follow the nested stack), never
# alone. docs/console-design.md §11, docs/operations.md §7 \"Resource budget\".
",
        Cell::Cn => "# GENERATED by ciam-gen from the route table (functions/gen/src/console.rs) and template.yaml's
# Globals; do not edit: npm run gen. infra/console.yaml for the cn cell (aws-cn): the nested
# stack of infra/cn.yaml, its roles without SES and SNS (docs/multi-region.md \"The cn stack\").
",
    });
    Ok(assemble(nest, head, &globals, &resources, &params))
}

/// A nest's template from its parts.
fn assemble(
    nest: &Nest,
    head: String,
    globals: &str,
    resources: &str,
    params: &[(String, String)],
) -> String {
    let mut s = head;
    let description = if nest.name == CONSOLE.name {
        "Ciam operator console".to_owned()
    } else {
        format!("Ciam {} routes", nest.paths)
    };
    let _ = write!(
        s,
        "AWSTemplateFormatVersion: \"2010-09-09\"
Transform: AWS::Serverless-2016-10-31
Description: {description} (nested stack of template.yaml)

Parameters:
"
    );
    for (name, expr) in params {
        let what = if expr == &format!("!Ref {name}") {
            format!("template.yaml's {name}")
        } else {
            format!("template.yaml: {expr}")
        };
        let _ = write!(
            s,
            "  {name}:\n    Type: String\n    Description: {}\n",
            crate::quoted(&what)
        );
    }
    s.push('\n');
    s.push_str(globals);
    s.push_str("\nResources:\n");
    s.push_str(resources);
    let n = nest.name;
    let origin = n.to_ascii_lowercase();
    let _ = write!(
        s,
        "Outputs:
  ApiDomain:
    Description: The {origin} API's host name (template.yaml's CloudFront origin `{origin}`).
    Value: !Sub \"${{{n}Api}}.execute-api.${{AWS::Region}}.${{AWS::URLSuffix}}\"
  ApiId:
    Value: !Ref {n}Api
"
    );
    s
}

/// template.yaml's `ConsoleStack`: the nested stack and the values it is given (`main`:
/// template.yaml's text, for its `Globals`).
pub fn render_application(fns: &[Function], main: &str) -> String {
    render_application_in(fns, main, Cell::Global)
}

/// `ConsoleStack` of `cell`'s main stack (infra/cn.yaml's is next to its nested template).
pub fn render_application_in(fns: &[Function], main: &str, cell: Cell) -> String {
    render_nest_application_in(&CONSOLE, fns, main, cell)
}

/// `<name>Stack` of `cell`'s main stack: the nested stack and the values it is given.
pub fn render_nest_application_in(nest: &Nest, fns: &[Function], main: &str, cell: Cell) -> String {
    let params = match body(nest, fns, main, cell) {
        Ok(b) => b.params,
        Err(e) => return format!("  # {e}\n"),
    };
    let location = match cell {
        Cell::Global => nest.path,
        Cell::Cn => nest.cn_location,
    };
    let mut s = format!(
        "  # {what} functions and API (functions/gen/src/console.rs): a stack of their
  # own, so that this one has room to grow (docs/operations.md §7, \"Resource budget\").
  {name}Stack:
    Type: AWS::Serverless::Application
",
        what = capital(nest.what),
        name = nest.name
    );
    if let Some(c) = nest.condition {
        let _ = writeln!(s, "    Condition: {c}");
    }
    let _ = write!(
        s,
        "    Properties:\n      Location: {location}\n      Parameters:\n"
    );
    for (name, expr) in params {
        let _ = writeln!(s, "        {name}: {expr}");
    }
    s.push('\n');
    s
}
