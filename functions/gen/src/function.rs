//! One `AWS::Serverless::Function` of a route, a page or an internal function, as template.yaml
//! or the console's stack (console.rs) holds it: its build, memory, environment, role, event,
//! and for a sign-in row its log group, for a gradual row its alias, canary alarm and
//! pre-traffic check (hook.rs).

use crate::policy::{ciam_lambdas_var, key_secrets, provider_env, CURRENT_OIDC_KEY, LOGOUT_KEY};
use crate::{hook, quoted, roles, Cell, Function, ALIAS};
use ciam_api::{Auth, Images, Kms, S3};
use std::fmt::Write as _;

/// Where a function is rendered: the HTTP API its route is on (`Api` in template.yaml,
/// `ConsoleApi` in infra/console.yaml) and how its role is named there (`!GetAtt <Role>.Arn` of
/// a role of the same template, or the parameter `!Ref <Role>Arn` the parent passes).
pub struct Home<'a> {
    pub api: &'a str,
    pub role: String,
    /// The cell whose stack it is in (no function URL and no SES or SNS in `cn`).
    pub cell: Cell,
}

impl Home<'_> {
    /// template.yaml: every function but the console's.
    pub fn main(f: &Function) -> Home<'static> {
        Home::main_in(f, Cell::Global)
    }

    /// The main stack of `cell` (template.yaml, infra/cn.yaml).
    pub fn main_in(f: &Function, cell: Cell) -> Home<'static> {
        Home {
            api: "Api",
            role: format!("!GetAtt {}.Arn", roles::role_name(f)),
            cell,
        }
    }
}

/// A console function (`Auth::Console`): it lives in infra/console.yaml (console.rs).
pub fn is_console(f: &Function) -> bool {
    matches!(f.auth, Auth::Console(_))
}

/// An organizations' function ("My company", `/ciam/v1/org/...`): it lives in infra/org.yaml
/// (console.rs, `ORGS`).
pub fn is_org(f: &Function) -> bool {
    !is_console(f) && !f.internal && f.path.starts_with("/ciam/v1/org/")
        || f.path.starts_with("/ciam/v1/auth/org/")
}

pub(crate) fn render_function(f: &Function, home: &Home) -> String {
    let l = &f.lambda;
    let stem = f.stem();
    let mut s = String::new();
    let _ = write!(
        s,
        "  {stem}Function:
    Type: AWS::Serverless::Function
    Metadata:
      BuildMethod: rust-cargolambda
      BuildProperties:
        Binary: {binary}
    Properties:
      Description: {description}
      MemorySize: {memory}
      Timeout: {timeout}
",
        binary = f.binary.name(),
        description = quoted(&if f.internal {
            format!("internal - {}", f.summary)
        } else {
            format!("{} {} - {}", f.method, f.path, f.summary)
        }),
        memory = l.memory,
        timeout = l.timeout,
    );
    if l.hashing {
        s.push_str("      ReservedConcurrentExecutions: !If [ReservesHashingConcurrency, !Ref PasswordHashingConcurrency, !Ref AWS::NoValue]\n");
    }
    // China has no function URLs: the cn stack's CloudFront calls this route through the HTTP API
    // like every other (cn.rs).
    if l.function_url && home.cell == Cell::Global {
        s.push_str(
            "      # CloudFront calls this route through its function URL, not the HTTP API (one API
      # Gateway request less, docs/cost.md). The function refuses anything without CloudFront's
      # origin header (403); the HttpApi route below stays (same function, same answers).
      FunctionUrlConfig:
        AuthType: NONE
        InvokeMode: BUFFERED
",
        );
    }
    if l.gradual {
        // SAM publishes a version per code or configuration change and points the alias at it
        // through CodeDeploy: 10% for DeploymentType's minutes, then all, or back to the old
        // version when the canary alarm fires. The HTTP API and the function URL call the alias.
        // Before the first request shifts, the pre-traffic check (hook.rs) invokes the new
        // version with its route's request: a version that cannot start never takes traffic.
        let _ = write!(
            s,
            "      AutoPublishAlias: {ALIAS}
      DeploymentPreference:
        Type: !Ref DeploymentType
        Alarms:
          - !Ref {stem}CanaryErrorsAlarm
        Hooks:
          PreTraffic: !Ref {hook}
",
            hook = hook::LOGICAL_ID,
        );
    }
    let _ = write!(
        s,
        "      LoggingConfig:
        LogGroup: !Ref {log_group}
      Environment:
        Variables:
          CIAM_ROUTE: {id}
",
        log_group = f.log_group(),
        id = f.id
    );
    // Its key purposes' secrets (docs/operations.md §1, "Keys with smaller reach"); the root
    // only the key distributor reads.
    for p in key_secrets(l) {
        let _ = writeln!(s, "          {}: !Ref {p}KeySecret", ciam_lambdas_var(p));
    }
    s.push_str(&provider_env(l, home.cell));
    // The cn cell's per-client limits, counted in the table (no web ACL there): on in every
    // function that answers a request (docs/multi-region.md §13).
    if home.cell == Cell::Cn && !f.internal {
        s.push_str("          CIAM_CLIENT_LIMITS: \"1\"\n");
    }
    if l.sign_ups {
        // Which cell this stack is, and where the other is (docs/multi-region.md §14).
        let cell = match home.cell {
            Cell::Global => "global",
            Cell::Cn => "cn",
        };
        let _ = writeln!(
            s,
            "          CIAM_CELL: {cell}\n          CIAM_OTHER_CELL: !Ref OtherCellUrl"
        );
    }
    if is_console(f) {
        s.push_str("          CIAM_AUDIT_RETENTION_DAYS: !Ref AuditRetentionDays\n");
    }
    // The row's provider's settings (the callback's own too), and its secret for the callback
    // (the code exchange only).
    for (var, parameter) in l.fed.settings() {
        let _ = writeln!(s, "          {var}: !Ref {parameter}");
    }
    if let Some(facts) = l.fed.secret() {
        let _ = writeln!(
            s,
            "          {}: !Ref {}",
            facts.secret_arn_var(),
            facts.secret()
        );
    }
    match l.s3 {
        S3::AvatarWrite | S3::AvatarRead => {
            s.push_str("          CIAM_AVATAR_BUCKET: !Ref AvatarBucket\n")
        }
        S3::WebIndex => s.push_str("          CIAM_WEB_BUCKET: !Ref WebBucket\n"),
        S3::None => {}
    }
    if matches!(l.kms, Kms::Sign | Kms::PublicKeys | Kms::Jwks) {
        let _ = writeln!(s, "          CIAM_OIDC_KMS_KEY_ID: {CURRENT_OIDC_KEY}");
    }
    if matches!(l.kms, Kms::SignLogout | Kms::Jwks) {
        let _ = writeln!(s, "          CIAM_LOGOUT_KMS_KEY_ID: {LOGOUT_KEY}");
    }
    if matches!(l.kms, Kms::PublicKeys | Kms::Jwks) {
        s.push_str("          CIAM_OIDC_KMS_PREVIOUS_KEY_IDS: !Ref OidcPreviousKmsKeyArns\n");
    }
    if l.images == Images::Invoke {
        s.push_str("          CIAM_IMAGE_DECODER_FUNCTION: !Ref AvatarDecodeFunction\n");
    }
    // The role of its permission set, shared with every function whose row grants the same
    // (roles.rs).
    let _ = writeln!(s, "      Role: {}", home.role);
    if f.internal {
        // No event: its role (`LogsOnlyRole`) writes the shared log group, nothing else.
        s.push('\n');
        return s;
    }
    let _ = write!(
        s,
        "      Events:
        Api:
          Type: HttpApi
          Properties:
            ApiId: !Ref {api}
            Method: {method}
            Path: {path}

",
        api = home.api,
        method = f.method,
        path = f.path,
    );
    if f.sign_in.is_some() {
        // Sign-ins are kept a year by default (SignInLogRetentionDays): the trail of an account
        // takeover is often found months later.
        let _ = write!(
            s,
            "  {stem}Logs:
    Type: AWS::Logs::LogGroup
    DeletionPolicy: Delete
    UpdateReplacePolicy: Delete
    Properties:
      RetentionInDays: !Ref SignInLogRetentionDays

"
        );
    }
    if l.gradual {
        let _ = write!(
            s,
            "  # Lambda errors (crashes, timeouts; not 4xx or 503 answers) of the version being deployed:
  # one in a minute stops the canary and CodeDeploy shifts the alias back.
  {stem}CanaryErrorsAlarm:
    Type: AWS::CloudWatch::Alarm
    Properties:
      AlarmDescription: {description}
      Namespace: AWS/Lambda
      MetricName: Errors
      Dimensions:
        - Name: FunctionName
          Value: !Ref {stem}Function
        - Name: Resource
          Value: !Sub \"${{{stem}Function}}:{ALIAS}\"
        - Name: ExecutedVersion
          Value: !GetAtt {stem}Function.Version.Version
      Statistic: Sum
      Period: 60
      EvaluationPeriods: 1
      Threshold: 1
      ComparisonOperator: GreaterThanOrEqualToThreshold
      TreatMissingData: notBreaching
      AlarmActions: [!Ref AlarmTopic]
      OKActions: [!Ref AlarmTopic]

",
            description = quoted(&format!(
                "{} errs in its newest version: CodeDeploy rolls the alias {ALIAS} back. On-call: docs/operations.md §8.6 \"{stem}CanaryErrorsAlarm\".",
                f.id
            )),
        );
    }
    s
}
