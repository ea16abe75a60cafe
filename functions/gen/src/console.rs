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
//! both stacks as one.

use crate::function::{is_console, render_function, Home};
use crate::{roles, Cell, Function, API_SETTINGS};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The nested template's path, relative to the repository root (and `Location` in template.yaml).
pub const PATH: &str = "infra/console.yaml";
/// The cn cell's (cn.rs), as infra/cn.yaml's `ConsoleStack` names it: relative to infra/cn.yaml.
pub const CN_LOCATION: &str = "cn-console.yaml";

/// The parent's stack name, for the functions' `CiamStack` tag (the Lambda alarms select the
/// stack's functions by it: a nested stack's own `AWS::StackName` is another name).
const PARENT_STACK: &str = "ParentStackName";

/// What the nested stack defines besides its functions and roles.
const OWN: [&str; 3] = [
    "ConsoleApi",
    "ConsoleDefaultRoutePermission",
    "ConsoleApi5xxAlarm",
];

/// The console's functions.
fn console_fns(fns: &[Function]) -> impl Iterator<Item = &Function> {
    fns.iter().filter(|f| is_console(f))
}

/// The roles the console's functions run as: (the roles only they run as, those shared with the
/// main stack's functions).
fn console_roles(fns: &[Function], cell: Cell) -> (Vec<roles::SharedRole>, Vec<String>) {
    let all = roles::shared_roles_in(fns, cell).unwrap_or_default();
    let used: Vec<String> = console_fns(fns).map(roles::role_name).collect();
    let (own, shared): (Vec<_>, Vec<_>) = all
        .into_iter()
        .filter(|r| used.contains(&r.name))
        .partition(|r| r.console_only);
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
fn body(fns: &[Function], main: &str, cell: Cell) -> Result<Body, String> {
    let (globals, mut passed) = globals(main)?;
    let (own_roles, shared_roles) = console_roles(fns, cell);
    let mut resources = String::new();
    resources.push_str(&api());
    resources.push_str(
        &roles::render(&own_roles).replace("!Ref AWS::StackName", &format!("!Ref {PARENT_STACK}")),
    );
    for f in console_fns(fns) {
        let role = roles::role_name(f);
        let home = Home {
            api: "ConsoleApi",
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
    let defined: Vec<String> = OWN
        .iter()
        .map(|s| (*s).to_owned())
        .chain(own_roles.iter().map(|r| r.name.clone()))
        .chain(console_fns(fns).map(Function::logical_id))
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

/// The console's HTTP API: its routes are the functions' events; what none matches goes to the
/// main stack's version function (Ciam's 404 and 405 bodies), as on the main API.
fn api() -> String {
    format!(
        "  ConsoleApi:
    Type: AWS::Serverless::HttpApi
    Properties:
      Description: Ciam /ciam/v1/admin, the operator console's API, reached through CloudFront only (X-Ciam-Origin-Verify).
      DefinitionBody:
        openapi: \"3.0.1\"
        info:
          title: !Sub \"${{{PARENT_STACK}}}-console-api\"
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
  ConsoleDefaultRoutePermission:
    Type: AWS::Lambda::Permission
    Properties:
      Action: lambda:InvokeFunction
      FunctionName: !Ref VersionFunctionArn
      Principal: apigateway.amazonaws.com
      SourceArn: !Sub \"arn:${{AWS::Partition}}:execute-api:${{AWS::Region}}:${{AWS::AccountId}}:${{ConsoleApi}}/*/*\"

  ConsoleApi5xxAlarm:
    Type: AWS::CloudWatch::Alarm
    Properties:
      AlarmDescription: >-
        The console's HTTP API answered 5xx (function errors, timeouts, throttles).
        On-call: docs/operations.md §8.6 \"ConsoleApi5xxAlarm\".
      Namespace: AWS/ApiGateway
      MetricName: 5xx
      Dimensions:
        - Name: ApiId
          Value: !Ref ConsoleApi
      Statistic: Sum
      Period: 300
      EvaluationPeriods: 1
      Threshold: 10
      ComparisonOperator: GreaterThanOrEqualToThreshold
      TreatMissingData: notBreaching
      AlarmActions: [!Ref AlarmTopic]
      OKActions: [!Ref AlarmTopic]

",
        settings = API_SETTINGS.replace("!GetAtt ApiAccessLogs.Arn", "!Ref ApiAccessLogsArn")
    )
}

/// infra/console.yaml, whole.
pub fn render_stack(fns: &[Function], main: &str) -> Result<String, String> {
    render_stack_in(fns, main, Cell::Global)
}

/// The console's stack of `cell` (infra/console.yaml, infra/cn-console.yaml), whole.
pub fn render_stack_in(fns: &[Function], main: &str, cell: Cell) -> Result<String, String> {
    let Body {
        globals,
        resources,
        params,
    } = body(fns, main, cell)?;
    let mut s = String::from(match cell {
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
    s.push_str(
        "AWSTemplateFormatVersion: \"2010-09-09\"
Transform: AWS::Serverless-2016-10-31
Description: Ciam operator console (nested stack of template.yaml)

Parameters:
",
    );
    for (name, expr) in &params {
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
    s.push_str(&globals);
    s.push_str("\nResources:\n");
    s.push_str(&resources);
    s.push_str(
        "Outputs:
  ApiDomain:
    Description: The console API's host name (template.yaml's CloudFront origin `console`).
    Value: !Sub \"${ConsoleApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}\"
  ApiId:
    Value: !Ref ConsoleApi
",
    );
    Ok(s)
}

/// template.yaml's `ConsoleStack`: the nested stack and the values it is given (`main`:
/// template.yaml's text, for its `Globals`).
pub fn render_application(fns: &[Function], main: &str) -> String {
    render_application_in(fns, main, Cell::Global)
}

/// `ConsoleStack` of `cell`'s main stack (infra/cn.yaml's is next to its nested template).
pub fn render_application_in(fns: &[Function], main: &str, cell: Cell) -> String {
    let params = match body(fns, main, cell) {
        Ok(b) => b.params,
        Err(e) => return format!("  # {e}\n"),
    };
    let location = match cell {
        Cell::Global => PATH,
        Cell::Cn => CN_LOCATION,
    };
    let mut s = format!(
        "  # The operator console's functions and API (functions/gen/src/console.rs): a stack of their
  # own, so that this one has room to grow (docs/operations.md §7, \"Resource budget\").
  ConsoleStack:
    Type: AWS::Serverless::Application
    Condition: ConsoleOn
    Properties:
      Location: {location}
      Parameters:
"
    );
    for (name, expr) in params {
        let _ = writeln!(s, "        {name}: {expr}");
    }
    s.push('\n');
    s
}
