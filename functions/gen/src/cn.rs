//! The `cn` cell's stack (issue 32 item 1): infra/cn.yaml, written whole from the route table and
//! template.yaml, for the `aws-cn` partition (Beijing cn-north-1, Ningxia cn-northwest-1).
//!
//! Why a second generated file rather than one template with `IsChina` conditions: cfn-lint
//! checks a resource type against a region's list whatever condition guards it (its E3006 reads
//! the `Type` only), so `AWS::CloudFront::Function` under `!Not [IsChina]` still fails
//! `--regions cn-north-1`; and SAM expands `FunctionUrlConfig` into an `AWS::Lambda::Url`
//! without asking a condition. A stack where the missing services are absent, not switched off,
//! is what the China regions' lists can vouch for (docs/multi-region.md "The cn stack").
//!
//! How: template.yaml's text with its generated regions written again for [`Cell::Cn`] (no
//! function URL, no SES or SNS statement: the providers' secrets instead, `policy.rs`), then the
//! hand-written resources China cannot have replaced (`cn_edge.rs` holds the replacements). Each
//! rewrite names the text it expects: when template.yaml changes under one, `ciam-gen` fails
//! with that text rather than writing a cn stack that silently kept a global-only piece.

use crate::cn_edge as edge;
use crate::{console, splice, Cell, Function, Region};

/// The cn cell's Lambda package (`ciam-lambdas-cn`: ciam-lambdas's binaries with the feature
/// `china`), relative to the repository root.
pub const CN_CODE: &str = "functions/lambdas-cn";

/// The stack, relative to the repository root.
pub const PATH: &str = "infra/cn.yaml";
/// Its console's nested stack, relative to the repository root (`console::CN_LOCATION` is the
/// same, relative to infra/cn.yaml).
pub const CONSOLE_PATH: &str = "infra/cn-console.yaml";

/// The organizations' nested stack of the cn cell, relative to the repository root.
pub const ORG_PATH: &str = "infra/cn-org.yaml";

/// infra/cn.yaml, whole, from the table and template.yaml's text (`main`).
pub fn render(fns: &[Function], main: &str) -> Result<String, String> {
    let mut text = main.to_owned();
    for region in Region::TEMPLATE {
        text = splice(&text, region, &region.render_in(fns, main, Cell::Cn))?;
    }
    let body = text
        .find("\nParameters:\n")
        .ok_or("template.yaml: no `Parameters:`")?;
    let mut t = format!("{}{}", edge::HEADER, &text[body + 1..]);
    // The stack lives in infra/: the code is one folder up (as infra/console.yaml's), in the
    // cn cell's build (the China senders linked in: functions/lambdas-cn/Cargo.toml says why a
    // package of its own).
    t = once(
        &t,
        "    CodeUri: functions/lambdas\n",
        &format!("    CodeUri: ../{CN_CODE}\n"),
    )?;
    t = once(
        &t,
        "    # The stack's mark on every function: the Lambda alarms select the project's functions by it\n    # (CloudWatch Metrics Insights, WHERE tag.CiamStack = ...), not the whole region.\n",
        "    # The stack's mark on every function (China has no resource tags for telemetry: the Lambda\n    # alarms read the Region's metrics, LambdaErrorsAlarm).\n",
    )?;
    t = parameters(t)?;
    t = rules_and_conditions(t)?;
    t = edge_resources(t)?;
    t = alarms(t)?;
    t = dashboard(t)?;
    Ok(t)
}

/// The console's nested stack of the cn cell (its roles without SES and SNS).
pub fn render_console(fns: &[Function], main: &str) -> Result<String, String> {
    render_nest(&console::CONSOLE, fns, main)
}

/// A nested stack of routes of the cn cell (its code the cn cell's build).
pub fn render_nest(nest: &console::Nest, fns: &[Function], main: &str) -> Result<String, String> {
    let t = console::render_nest_in(nest, fns, main, Cell::Cn)?;
    let t = once(
        &t,
        "    CodeUri: ../functions/lambdas\n",
        &format!("    CodeUri: ../{CN_CODE}\n"),
    )?;
    Ok(t.replace(
        "(nested stack of template.yaml)",
        "(nested stack of infra/cn.yaml)",
    )
    .replace("\"template.yaml", "\"infra/cn.yaml"))
}

fn parameters(mut t: String) -> Result<String, String> {
    t = replace_block(&t, "Parameters", "DomainName", edge::DOMAIN_NAME)?;
    t = replace_block(&t, "Parameters", "CertificateArn", edge::IAM_CERTIFICATE)?;
    t = replace_block(&t, "Parameters", "ConsoleHostName", edge::CONSOLE_HOST_NAME)?;
    t = replace_block(&t, "Parameters", "WebAclArn", edge::CLIENT_LIMITS)?;
    t = once(
        &t,
        "production (default) refuses to deploy without WebAclArn (without the web ACL nothing\n      limits one client anywhere),",
        "production (default) refuses to deploy without ClientLimits (without them nothing limits\n      one client anywhere),",
    )?;
    t = replace_block(
        &t,
        "Parameters",
        "BackupCopyVaultArn",
        edge::BACKUP_COPY_VAULT,
    )?;
    t = replace_block(
        &t,
        "Parameters",
        "SecretReplicaRegion",
        edge::SECRET_REPLICA_REGION,
    )?;
    t = remove_block(&t, "Parameters", "SmsMonthlySpendAlarmUsd")?;
    t = remove_block(&t, "Parameters", "EnableTelemetryTags")?;
    insert_before(
        &t,
        "Parameters",
        "MonthlyBudgetUsd",
        edge::PROVIDER_PARAMETERS,
    )
}

fn rules_and_conditions(mut t: String) -> Result<String, String> {
    t = remove_block(&t, "Rules", "DomainNeedsCertificate")?;
    t = replace_block(&t, "Rules", "CertificateNeedsDomain", edge::DOMAIN_RULES)?;
    t = remove_block(&t, "Rules", "ConsoleHostNeedsDomain")?;
    t = replace_block(
        &t,
        "Rules",
        "ProductionNeedsWebAcl",
        edge::CLIENT_LIMITS_RULE,
    )?;
    t = remove_block(&t, "Conditions", "TurnsOnTelemetryTags")?;
    t = remove_block(&t, "Conditions", "HasCertificate")?;
    remove_block(&t, "Conditions", "HasWebAcl")
}

/// The edge: an origin access identity for OAC, no SPA rewrite function, the distribution on
/// its IAM certificate, without a web ACL, the password sign-in through the HTTP API.
fn edge_resources(mut t: String) -> Result<String, String> {
    t = once(&t, edge::WEB_READ_BY_OAC, edge::WEB_READ_BY_OAI)?;
    t = replace_block(
        &t,
        "Resources",
        "WebOriginAccessControl",
        edge::ORIGIN_ACCESS_IDENTITY,
    )?;
    t = remove_block(&t, "Resources", "SpaRewriteFunction")?;
    for (from, to) in edge::DISTRIBUTION {
        t = once(&t, from, to)?;
    }
    Ok(t)
}

/// No telemetry tags, SES reputation, SNS spend or function URL metrics in China.
fn alarms(mut t: String) -> Result<String, String> {
    t = remove_block(&t, "Resources", "TelemetryTags")?;
    t = replace_block(
        &t,
        "Resources",
        "LambdaErrorsAlarm",
        edge::LAMBDA_ERRORS_ALARM,
    )?;
    t = replace_block(
        &t,
        "Resources",
        "LambdaThrottlesAlarm",
        edge::LAMBDA_THROTTLES_ALARM,
    )?;
    for name in [
        "SesBounceRateAlarm",
        "SesComplaintRateAlarm",
        "SmsSpendAlarm",
        "SignInUrl5xxRateAlarm",
        "SignInUrl4xxRateAlarm",
    ] {
        t = remove_block(&t, "Resources", name)?;
    }
    Ok(t)
}

/// The dashboard without the widgets of what China lacks (SES and SNS SMS, the web ACL, the
/// function URL, the telemetry-tag queries, the billing metric), CloudFront's metrics read in
/// `CloudFrontMetricsRegion`.
fn dashboard(mut t: String) -> Result<String, String> {
    let gone = [
        "\"AWS/SES\"",
        "\"AWS/WAFV2\"",
        "\"UrlRequestCount\"",
        "tag.CiamStack",
        "\"AWS/Billing\"",
    ];
    let start = t
        .find("\n  Dashboard:\n")
        .ok_or("template.yaml: no Dashboard")?;
    let open = "              {\n";
    let mut out = String::new();
    let mut rest = &t[start..];
    let mut removed = 0;
    // Each widget is one `{ ... }` at 14 spaces in the dashboard's JSON.
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        let widget = &rest[at..];
        let end = widget
            .find("\n              }")
            .ok_or("Dashboard: a widget without its end")?
            + "\n              }".len();
        let (this, after) = widget.split_at(end);
        if gone.iter().any(|g| this.contains(g)) {
            removed += 1;
            // Its separator: the comma after it, or (the last widget) the one before it.
            if let Some(a) = after.strip_prefix(",\n") {
                rest = a;
                continue;
            }
            if out.ends_with(",\n") {
                out.truncate(out.len() - 2);
                out.push('\n');
            }
            rest = after.strip_prefix('\n').unwrap_or(after);
            continue;
        }
        out.push_str(this);
        rest = after;
    }
    out.push_str(rest);
    if removed != 6 {
        return Err(format!(
            "Dashboard: {removed} widgets of global-only metrics, 6 expected"
        ));
    }
    t.truncate(start);
    t.push_str(&out);
    t = once(
        &t,
        "  # The main graphs on one page. CloudFront and the web ACL publish in us-east-1.\n",
        "  # The main graphs on one page. CloudFront's metrics are read in CloudFrontMetricsRegion.\n",
    )?;
    t = once(
        &t,
        "\"title\": \"CloudFront (global, us-east-1)\", \"region\": \"us-east-1\"",
        "\"title\": \"CloudFront (${CloudFrontMetricsRegion})\", \"region\": \"${CloudFrontMetricsRegion}\"",
    )?;
    t = once(
        &t,
        "\"title\": \"CloudFront error rates (%, us-east-1)\", \"region\": \"us-east-1\"",
        "\"title\": \"CloudFront error rates (%, ${CloudFrontMetricsRegion})\", \"region\": \"${CloudFrontMetricsRegion}\"",
    )?;
    once(
        &t,
        "          WebAclName: !Select\n            - 2\n            - !Split [\"/\", !If [HasWebAcl, !Ref WebAclArn, \"none/webacl/none\"]]\n",
        "",
    )
}

/// `t` with `from`, which must be there exactly once, replaced by `to`.
pub(crate) fn once(t: &str, from: &str, to: &str) -> Result<String, String> {
    match t.matches(from).count() {
        1 => Ok(t.replacen(from, to, 1)),
        n => Err(format!(
            "template.yaml has {n} times, not once, the text the cn stack rewrites: {:?}",
            from.lines().next().unwrap_or_default()
        )),
    }
}

/// The line range of `name`'s entry in the top-level `section` (`Parameters`, `Resources`...):
/// from the comment lines right above it to the last line before the next entry (its blank lines
/// included).
fn block(t: &str, section: &str, name: &str) -> Result<(usize, usize), String> {
    let lines: Vec<&str> = t.split_inclusive('\n').collect();
    let top = |l: &str| !l.starts_with(' ') && !l.starts_with('#') && !l.trim().is_empty();
    let sec = lines
        .iter()
        .position(|l| l.trim_end() == format!("{section}:"))
        .ok_or_else(|| format!("no `{section}:`"))?;
    let sec_end = lines[sec + 1..]
        .iter()
        .position(|l| top(l))
        .map_or(lines.len(), |i| sec + 1 + i);
    let head = format!("  {name}:");
    let at = (sec + 1..sec_end)
        .find(|&i| {
            lines[i]
                .strip_prefix(&head)
                .is_some_and(|r| r.starts_with([' ', '\n']))
        })
        .ok_or_else(|| format!("no `{name}` in {section}"))?;
    let mut from = at;
    while from > sec + 1 && lines[from - 1].starts_with("  # ") {
        from -= 1;
    }
    let entry = |l: &str| l.len() > 2 && l.starts_with("  ") && !l[2..].starts_with(' ');
    let to = (at + 1..sec_end)
        .find(|&i| entry(lines[i]) || top(lines[i]))
        .unwrap_or(sec_end);
    // Blank lines at the end belong to it; comments of the next entry do not.
    let offset = |i: usize| lines[..i].iter().map(|l| l.len()).sum::<usize>();
    Ok((offset(from), offset(to)))
}

fn replace_block(t: &str, section: &str, name: &str, with: &str) -> Result<String, String> {
    let (from, to) = block(t, section, name)?;
    Ok(format!("{}{with}{}", &t[..from], &t[to..]))
}

fn remove_block(t: &str, section: &str, name: &str) -> Result<String, String> {
    replace_block(t, section, name, "")
}

fn insert_before(t: &str, section: &str, name: &str, new: &str) -> Result<String, String> {
    let (from, _) = block(t, section, name)?;
    Ok(format!("{}{new}{}", &t[..from], &t[from..]))
}
