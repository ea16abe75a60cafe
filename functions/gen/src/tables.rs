//! The tables the route table also writes: the HTTP API's per-route throttles, the sign-in
//! metric filters, the dashboard's hashing lines (template.yaml regions), the action table of
//! docs/operations.md §2 and infra/routes.json.

use crate::policy::key_secrets;
use crate::{audit, quoted, roles, webhooks, Function};
use ciam_api::{Auth, Fed, Images, Kms, Table, S3};
use serde_json::{json, Value};
use std::fmt::Write as _;

/// The main HTTP API's per-route throttles: its own functions' (a nested stack's functions are
/// on that stack's API, which writes theirs: `console::api`).
pub(crate) fn render_route_settings(fns: &[Function]) -> String {
    let own: Vec<Function> = fns
        .iter()
        .filter(|f| !crate::is_console(f) && !crate::is_org(f))
        .cloned()
        .collect();
    render_route_settings_of(&own)
}

/// The per-route throttles of `fns`, as `RouteSettings` entries (8 spaces deep).
pub(crate) fn render_route_settings_of(fns: &[Function]) -> String {
    let mut s = String::new();
    for f in fns {
        if let Some(t) = f.lambda.throttle {
            let _ = write!(
                s,
                "        {key}:
          ThrottlingBurstLimit: {burst}
          ThrottlingRateLimit: {rate}
",
                key = quoted(&f.route_key()),
                burst = t.burst,
                rate = t.rate,
            );
        }
    }
    s
}

pub(crate) fn render_sign_in_metrics(fns: &[Function]) -> String {
    let mut s = String::new();
    for f in fns.iter().filter(|f| f.sign_in.is_some()) {
        let stem = f.stem();
        let _ = write!(
            s,
            "  {stem}SignInFilter:
    Type: AWS::Logs::MetricFilter
    Properties:
      LogGroupName: !Ref {stem}Logs
      FilterPattern: '{{ $.fields.message = \"sign-in\" }}'
      MetricTransformations:
        - MetricNamespace: Ciam
          MetricName: SignIn
          MetricValue: \"1\"
          Unit: Count
          Dimensions:
            - Key: Outcome
              Value: $.fields.outcome
            - Key: Method
              Value: $.fields.method

  {stem}SignInFailuresFilter:
    Type: AWS::Logs::MetricFilter
    Properties:
      LogGroupName: !Ref {stem}Logs
      FilterPattern: '{{ $.fields.message = \"sign-in\" && $.fields.outcome != \"success\" && $.fields.outcome != \"NEED_TOTP_VERIFY\" && $.fields.outcome != \"unavailable\" }}'
      MetricTransformations:
        - MetricNamespace: Ciam
          MetricName: SignInFailures
          MetricValue: \"1\"
          DefaultValue: 0
          Unit: Count

  {stem}SignInUnavailableFilter:
    Type: AWS::Logs::MetricFilter
    Properties:
      LogGroupName: !Ref {stem}Logs
      FilterPattern: '{{ $.fields.message = \"sign-in\" && $.fields.outcome = \"unavailable\" }}'
      MetricTransformations:
        - MetricNamespace: Ciam
          MetricName: SignInUnavailable
          MetricValue: \"1\"
          DefaultValue: 0
          Unit: Count

"
        );
    }
    s
}

/// The `HashingFunctionMetrics` variable of the dashboard's `!Sub`: one concurrency line per
/// argon2 function (their reserved ceiling is `PasswordHashingConcurrency`).
pub(crate) fn render_dashboard_hashing(fns: &[Function]) -> String {
    let lines: Vec<String> = fns
        .iter()
        .filter(|f| f.lambda.hashing)
        .map(|f| {
            let stem = f.stem();
            format!(
                "            [\"AWS/Lambda\", \"ConcurrentExecutions\", \"FunctionName\", \"${{{stem}Function}}\", {{\"label\": \"{stem}\"}}]"
            )
        })
        .collect();
    format!(
        "          HashingFunctionMetrics: !Sub >-\n{}\n",
        lines.join(",\n")
    )
}

pub(crate) fn actions_and_resources(f: &Function) -> (Vec<String>, Vec<String>) {
    let l = &f.lambda;
    // (actions, resources) of each grant the row gives, in the table's column order.
    let table = match l.table {
        Table::None => None,
        Table::Read => Some("`dynamodb:{GetItem,BatchGetItem,Query}`"),
        Table::Write => Some(
            "`dynamodb:{GetItem,BatchGetItem,Query,PutItem,UpdateItem,DeleteItem,ConditionCheckItem}`",
        ),
        Table::GetItem => Some("`dynamodb:GetItem`"),
    }
    .map(|a| {
        // Who may put the console's audit entries (audit.rs); nobody changes or deletes one.
        let audit = if l.table != Table::Write {
            "Table"
        } else if audit::writes_audit(f) {
            "Table (puts AUDIT# entries, never changes one)"
        } else {
            "Table (never an AUDIT# item)"
        };
        (a, audit)
    });
    let s3 = match l.s3 {
        S3::None => None,
        S3::AvatarWrite => Some(("`s3:{PutObject,DeleteObject}`", "AvatarBucket objects")),
        S3::AvatarRead => Some(("`s3:GetObject`", "AvatarBucket objects")),
        S3::WebIndex => Some(("`s3:GetObject`", "WebBucket index.html")),
    };
    let kms = match l.kms {
        Kms::None => None,
        Kms::Sign => Some(("`kms:{Sign,GetPublicKey}`", "OidcSigningKey")),
        Kms::SignLogout => Some(("`kms:{Sign,GetPublicKey}`", "LogoutSigningKey")),
        Kms::PublicKeys => Some(("`kms:GetPublicKey`", "OidcSigningKey and previous keys")),
        Kms::Jwks => Some((
            "`kms:GetPublicKey`",
            "OidcSigningKey and previous keys, LogoutSigningKey",
        )),
    };
    let invoke =
        (l.images == Images::Invoke).then_some(("`lambda:InvokeFunction`", "AvatarDecodeFunction"));
    let messages = match (l.messages, l.sms) {
        (true, true) => Some((
            "`ses:SendEmail`, `sns:Publish`",
            "SES identity MailFrom and its domain, SMS (no topic)",
        )),
        (true, false) => Some(("`ses:SendEmail`", "SES identity MailFrom and its domain")),
        _ => None,
    };
    if let Some(w) = ciam_api::WEBHOOK_FUNCTIONS.iter().find(|w| w.id == f.id) {
        return webhooks::actions(w);
    }
    if f.internal {
        return (
            vec!["none".to_owned()],
            vec!["none: its log group only".to_owned()],
        );
    }
    let (mut actions, mut resources): (Vec<String>, Vec<String>) =
        [table, s3, kms, messages, invoke]
            .into_iter()
            .flatten()
            .map(|(a, r)| (a.to_owned(), r.to_owned()))
            .unzip();
    actions.push("`secretsmanager:GetSecretValue`".to_owned());
    let mut secrets: Vec<String> = key_secrets(l).map(|p| format!("{p}KeySecret")).collect();
    secrets.extend(l.fed.secret().map(|f| f.secret()));
    secrets.push("OriginSecret".to_owned());
    resources.push(secrets.join(", "));
    (actions, resources)
}

pub(crate) fn render_actions(fns: &[Function]) -> String {
    let mut s = String::from(
        "| Function | Actions | Resources |
|---|---|---|
| every function | `logs:{CreateLogGroup,CreateLogStream,PutLogEvents}` | AWS managed AWSLambdaBasicExecutionRole (on every role) |
",
    );
    for f in fns {
        let (actions, resources) = actions_and_resources(f);
        let _ = writeln!(
            s,
            "| {} | {} | {} |",
            f.logical_id(),
            actions.join(", "),
            resources.join("; ")
        );
    }
    if let Ok(roles) = roles::shared_roles(fns) {
        s.push_str(&roles::render_table(&roles));
    }
    s
}

fn lower(debug: impl std::fmt::Debug) -> String {
    let text = format!("{debug:?}");
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// routes.json's `federation` field: `null`, `{"part": "list"}` (the providers offered: every
/// linking provider's public settings), or the row's provider and part of the round trip;
/// the callback's also names the secret it reads and the variable that gives its ARN (the
/// infra tests check the template against it).
fn federation_part(fed: Fed) -> Value {
    let (id, part) = match fed {
        Fed::None => return Value::Null,
        Fed::List => return json!({"part": "list"}),
        Fed::Start(id) => (id, "start"),
        Fed::Callback(id) => (id, "callback"),
    };
    let f = id.facts();
    let mut v = json!({"provider": f.name, "part": part});
    if part == "callback" {
        v["secret"] = json!(f.secret());
        v["secretArnVar"] = json!(f.secret_arn_var());
    }
    v
}

/// infra/routes.json: every function's facts, one object each, in table order.
pub fn routes_json(fns: &[Function]) -> String {
    let rows: Vec<Value> = fns
        .iter()
        .map(|f| {
            let l = &f.lambda;
            json!({
                "function": f.logical_id(),
                "logs": f.log_group(),
                "id": f.id,
                "method": f.method,
                "path": f.path,
                "binary": f.binary.name(),
                "auth": match f.auth {
                    // The console's rows say their role: `console:viewer`.
                    Auth::Console(role) => format!("console:{}", role.as_str()),
                    auth => lower(auth),
                },
                "signIn": f.sign_in,
                "table": lower(l.table),
                "keys": l.keys.iter().map(|p| p.name()).collect::<Vec<_>>(),
                "federation": federation_part(l.fed),
                "messages": l.messages,
                "sms": l.sms,
                "s3": lower(l.s3),
                "kms": lower(l.kms),
                "memory": l.memory,
                "timeout": l.timeout,
                "hashing": l.hashing,
                "throttle": l.throttle.map(|t| json!({"burst": t.burst, "rate": t.rate})),
                "waf": l.waf.rule(),
                // The rule's limit per client and 5 minutes: infra/waf.yaml's parameter default
                // and the cn cell's own counter's (infra/tests/test_template_waf.py).
                "wafLimit": l.waf.limit(),
                "functionUrl": l.function_url,
                "gradual": l.gradual,
                "images": lower(l.images),
                "internal": f.internal,
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&json!({
        "generated": "by ciam-gen from the route table (functions/api/src/routes/mod.rs); do not edit: npm run gen",
        "functions": rows,
        // The blanket per-client rule, which counts every route besides its own rule.
        // The window of every rule (the web ACL's EvaluationWindowSec, the cn counter's window).
        "blanket": {
            "rule": ciam_api::waf::BLANKET.rule,
            "limit": ciam_api::waf::BLANKET.limit,
            "windowSecs": ciam_core::client_limits::WINDOW_SECS,
        },
    }))
    .unwrap_or_default();
    text.push('\n');
    text
}
