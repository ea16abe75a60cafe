//! Over 500 lines because the generator is being split (temporary reason line, issue 31).
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

use ciam_api::{Auth, Binary, Images, Kms, Lambda, Staff, Table, S3};
pub mod audit;
pub mod console;
pub mod hook;
pub mod roles;
pub mod webhooks;

use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

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
            binary: Binary::Bootstrap,
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
}

impl Region {
    pub const TEMPLATE: [Region; 6] = [
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
        match self {
            Region::Functions => render_functions(fns, text),
            Region::ApiSettings => API_SETTINGS.to_owned(),
            Region::RouteSettings => render_route_settings(fns),
            Region::SignInMetrics => render_sign_in_metrics(fns),
            Region::DashboardHashing => render_dashboard_hashing(fns),
            Region::Webhooks => webhooks::render(),
            Region::Actions => render_actions(fns),
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
fn quoted(s: &str) -> String {
    Value::String(s.to_owned()).to_string()
}

const CURRENT_OIDC_KEY: &str =
    "!If [OverridesOidcKey, !Ref OidcKmsKeyArn, !GetAtt OidcSigningKey.Arn]";
/// The logout tokens' own key (docs/oidc.md): the webhook delivery signs with it.
const LOGOUT_KEY: &str = "!GetAtt LogoutSigningKey.Arn";

/// The inline statements of a function's policy: what its row allows besides the shared
/// managed policies (the table classes and the two secrets).
fn inline_statements(l: &Lambda) -> String {
    let mut s = String::new();
    if l.table == Table::GetItem {
        s.push_str(
            "            - Sid: ReadAppItems
              Effect: Allow
              Action: dynamodb:GetItem
              Resource: !GetAtt Table.Arn
",
        );
    }
    if l.messages {
        s.push_str(
            "            - Sid: SendMailFromTheSenderOnly
              Effect: Allow
              Action: ses:SendEmail
              Resource:
                - !Sub arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/${MailFrom}
                - !Sub
                  - arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/${Domain}
                  - Domain: !Select [1, !Split [\"@\", !Ref MailFrom]]
              Condition:
                StringEquals:
                  ses:FromAddress: !Ref MailFrom
",
        );
    }
    if l.sms {
        s.push_str(
            "            # An SMS to a phone number has no resource ARN; NotResource keeps every topic out.
            - Sid: SendSmsButNoTopic
              Effect: Allow
              Action: sns:Publish
              NotResource: !Sub arn:${AWS::Partition}:sns:*:*:*
",
        );
    }
    if l.images == Images::Invoke {
        s.push_str(
            "            # Uploads are decoded there, never here: the one function it may invoke.
            - Sid: InvokeTheImageDecoderOnly
              Effect: Allow
              Action: lambda:InvokeFunction
              Resource: !GetAtt AvatarDecodeFunction.Arn
",
        );
    }
    let keys: Vec<&str> = key_secrets(l).collect();
    if !keys.is_empty() {
        s.push_str(
            "            - Sid: ReadItsKeySecrets
              Effect: Allow
              Action: secretsmanager:GetSecretValue
              Resource:
",
        );
        for p in keys {
            let _ = writeln!(s, "                - !Ref {p}KeySecret");
        }
    }
    if l.staff == Staff::ClientSecret {
        s.push_str(
            "            - Sid: ReadTheStaffClientSecret
              Effect: Allow
              Action: secretsmanager:GetSecretValue
              Resource: !Ref StaffSecret
",
        );
    }
    match l.s3 {
        S3::None => {}
        // Stores the new thumbnail and deletes the one it replaces; never reads or lists.
        S3::AvatarWrite => s.push_str(
            "            - Sid: WriteAndDeleteAvatars
              Effect: Allow
              Action:
                - s3:PutObject
                - s3:DeleteObject
              Resource: !Sub \"${AvatarBucket.Arn}/*\"
",
        ),
        S3::AvatarRead => s.push_str(
            "            # Without s3:ListBucket S3 answers an absent key with AccessDenied, not
            # NoSuchKey; the serving route treats both as \"not found\".
            - Sid: ReadAvatars
              Effect: Allow
              Action: s3:GetObject
              Resource: !Sub \"${AvatarBucket.Arn}/*\"
",
        ),
        S3::WebIndex => s.push_str(
            "            - Sid: ReadTheEntryPageOnly
              Effect: Allow
              Action: s3:GetObject
              Resource: !Sub \"${WebBucket.Arn}/index.html\"
",
        ),
    }
    match l.kms {
        Kms::None => {}
        Kms::Sign => {
            let _ = write!(
                s,
                "            # Signs id_tokens with the current key only; the private key never leaves KMS.
            - Sid: SignWithTheCurrentOidcKey
              Effect: Allow
              Action:
                - kms:Sign
                - kms:GetPublicKey
              Resource: {CURRENT_OIDC_KEY}
"
            );
        }
        Kms::SignLogout => {
            let _ = write!(
                s,
                "            # Signs logout tokens with their own key only, never an id_token's.
            - Sid: SignWithTheLogoutKeyOnly
              Effect: Allow
              Action:
                - kms:Sign
                - kms:GetPublicKey
              Resource: {LOGOUT_KEY}
"
            );
        }
        Kms::PublicKeys | Kms::Jwks => {
            let _ = write!(
                s,
                "            # Publishes the current key and the previous ones (after a rotation); never signs.
            - Sid: ReadOidcPublicKeys
              Effect: Allow
              Action: kms:GetPublicKey
              Resource: !If
                - HasPreviousOidcKeys
                - !Split
                  - \",\"
                  - !Sub
                    - \"${{Current}},${{OidcPreviousKmsKeyArns}}\"
                    - Current: {CURRENT_OIDC_KEY}
                - - {CURRENT_OIDC_KEY}
"
            );
            if l.kms == Kms::Jwks {
                let _ = write!(
                    s,
                    "            # And the logout tokens' key, published beside them under its own kid.
            - Sid: ReadTheLogoutPublicKey
              Effect: Allow
              Action: kms:GetPublicKey
              Resource: {LOGOUT_KEY}
"
                );
            }
        }
    }
    s
}

/// Where a function is rendered: the HTTP API its route is on (`Api` in template.yaml,
/// `ConsoleApi` in infra/console.yaml) and how its role is named there (`!GetAtt <Role>.Arn` of
/// a role of the same template, or the parameter `!Ref <Role>Arn` the parent passes).
pub struct Home<'a> {
    pub api: &'a str,
    pub role: String,
}

impl Home<'_> {
    /// template.yaml: every function but the console's.
    pub fn main(f: &Function) -> Home<'static> {
        Home {
            api: "Api",
            role: format!("!GetAtt {}.Arn", roles::role_name(f)),
        }
    }
}

/// A console function (`Auth::Console`): it lives in infra/console.yaml (console.rs).
pub fn is_console(f: &Function) -> bool {
    matches!(f.auth, Auth::Console(_))
}

fn render_function(f: &Function, home: &Home) -> String {
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
    if l.function_url {
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
    if is_console(f) {
        s.push_str("          CIAM_AUDIT_RETENTION_DAYS: !Ref AuditRetentionDays\n");
    }
    if l.staff != Staff::None {
        s.push_str("          CIAM_STAFF_ISSUER: !Ref StaffIssuer\n          CIAM_STAFF_CLIENT_ID: !Ref StaffClientId\n");
        if l.staff == Staff::ClientSecret {
            // The callback reads the provider's id_token: whether it says a second factor.
            s.push_str("          CIAM_STAFF_MFA_ACR: !Ref StaffMfaAcr\n");
        }
    }
    if l.staff == Staff::ClientSecret {
        s.push_str("          CIAM_STAFF_SECRET_ARN: !Ref StaffSecret\n");
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

fn render_functions(fns: &[Function], template: &str) -> String {
    // The shared roles first (one per permission set, roles.rs), but those only the console's
    // functions run as: they are in its stack. The webhook functions have a region of their own
    // (`webhooks.rs`): their roles, queues and event sources are not a route's. Then the
    // console's stack (console.rs), in place of its functions.
    let roles = roles::shared_roles(fns)
        .map(|r| {
            let main: Vec<_> = r.into_iter().filter(|r| !r.console_only).collect();
            roles::render(&main)
        })
        .unwrap_or_else(|e| format!("  # {e}\n"));
    roles
        + &fns
            .iter()
            .filter(|f| f.binary != Binary::Webhooks && !is_console(f))
            .map(|f| render_function(f, &Home::main(f)))
            .collect::<String>()
        + &hook::render(fns)
        + &console::render_application(fns, template)
}

fn render_route_settings(fns: &[Function]) -> String {
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

fn render_sign_in_metrics(fns: &[Function]) -> String {
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
fn render_dashboard_hashing(fns: &[Function]) -> String {
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

fn actions_and_resources(f: &Function) -> (Vec<String>, Vec<String>) {
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
    let mut secrets = Vec::new();
    let keys: Vec<String> = key_secrets(l).map(|p| format!("{p}KeySecret")).collect();
    secrets.extend(keys.iter().map(String::as_str));
    if l.staff == Staff::ClientSecret {
        secrets.push("StaffSecret");
    }
    secrets.push("OriginSecret");
    resources.push(secrets.join(", "));
    (actions, resources)
}

fn render_actions(fns: &[Function]) -> String {
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

/// The purposes whose secrets (`Es256` has none: KMS signs there) (`<Purpose>KeySecret`) the function reads, by name.
fn key_secrets(l: &Lambda) -> impl Iterator<Item = &'static str> {
    l.keys.iter().filter(|p| p.distributed()).map(|p| p.name())
}

/// `CIAM_<PURPOSE>_KEY_SECRET_ARN` (as `ciam_lambdas::purpose_keys::var`).
fn ciam_lambdas_var(name: &str) -> String {
    format!("CIAM_{}_KEY_SECRET_ARN", name.to_ascii_uppercase())
}

fn lower(debug: impl std::fmt::Debug) -> String {
    let text = format!("{debug:?}");
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
        .unwrap_or_default()
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
                "staff": lower(l.staff),
                "messages": l.messages,
                "sms": l.sms,
                "s3": lower(l.s3),
                "kms": lower(l.kms),
                "memory": l.memory,
                "timeout": l.timeout,
                "hashing": l.hashing,
                "throttle": l.throttle.map(|t| json!({"burst": t.burst, "rate": t.rate})),
                "waf": l.waf.rule(),
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
    }))
    .unwrap_or_default();
    text.push('\n');
    text
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
    out.push((path, text));
    let (path, text) = read("docs/operations.md")?;
    let text = splice(&text, Region::Actions, &Region::Actions.render(fns, &text))
        .map_err(|e| format!("docs/operations.md: {e}"))?;
    out.push((path, text));
    out.push((root.join("infra/routes.json"), routes_json(fns)));
    Ok(out)
}

/// The functions of the committed table, with the summaries of the committed docs/openapi.json.
pub fn table_functions(root: &Path) -> Result<Vec<Function>, String> {
    let path = root.join("docs/openapi.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let openapi: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    functions(&openapi)
}
