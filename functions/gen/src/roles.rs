//! One IAM role per permission set (issue 30 item 7). SAM would make a role for every function
//! from its `Policies:` (106 functions, 109 roles, 36 distinct sets): CloudFormation's 500
//! resources were nearly spent on copies. Here the functions whose rows grant the same thing
//! (the managed policies, the inline statements, the trust) share one `AWS::IAM::Role`, named
//! from what it allows (`TableWriteMessagesKeysSessionCodeRole`), and each function says
//! `Role: !GetAtt <Name>Role.Arn`. The name is a function of the row's facts only, so a role
//! keeps its name while rows come and go; infra/tests/test_template_roles.py checks, after the
//! SAM transform, that every function may do exactly what its own role allowed before.

use crate::audit::writes_audit;
use crate::policy::inline_statements;
use crate::{Cell, Function};
use ciam_api::{Auth, Binary, Images, Kms, Table, S3};
use std::fmt::Write as _;

/// The AWS managed policy every function's role holds (its log lines), as SAM attached it. In
/// the stack's own partition (`arn:aws-cn:` in China, docs/multi-region.md "The cn stack"): a
/// literal `arn:aws:` names a policy that does not exist there.
pub const BASIC_EXECUTION: &str =
    "!Sub arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole";

/// One shared role: its logical id and the functions (logical ids) that run as it.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedRole {
    pub name: String,
    pub functions: Vec<String>,
    /// Every function of it is a console function: the role is in the console's stack
    /// (console.rs), which exists only with them.
    pub console_only: bool,
    /// The managed policies of this template it holds (besides `BASIC_EXECUTION`).
    pub managed: Vec<&'static str>,
    /// Its inline statements (YAML list items, indented for `Policies`).
    pub statements: String,
}

/// Whether the role's functions get one: every function but the webhook pipeline's, whose
/// roles webhooks.rs writes in full (theirs are one function's each).
pub fn has_shared_role(f: &Function) -> bool {
    f.binary != Binary::Webhooks
}

/// The managed policies of this template the function's role holds: the origin secret (every
/// route; not the internal functions) and its table class (a writing route that records operator
/// acts: `TableAuditWritePolicy`, which may put audit entries; any other: `TableWritePolicy`,
/// which may not, audit.rs).
fn managed(f: &Function) -> Vec<&'static str> {
    if f.internal {
        return Vec::new();
    }
    let mut out = vec!["OriginSecretReadPolicy"];
    match f.lambda.table {
        Table::Read => out.push("TableReadPolicy"),
        Table::Write if writes_audit(f) => out.push("TableAuditWritePolicy"),
        Table::Write => out.push("TableWritePolicy"),
        Table::None | Table::GetItem => {}
    }
    out
}

/// The role's logical id, from what it allows: `<parts>Role`, the parts in this order: the
/// table (`TableRead`, `TableWrite`, `TableWriteAudit` when it records operator acts, `AppItems`
/// for GetItem), `Messages` (mail and SMS),
/// `ImageDecoder` (invokes it), `Keys<Purpose>...` (its key secrets), `<Stem>Secret` (a
/// federation callback's provider secret: `StaffSecret`), the S3
/// grant (`AvatarWrite`, `AvatarRead`, `WebIndex`), the KMS grant (`OidcSign`,
/// `OidcPublicKeys`). The origin secret every route reads is not named: a route with nothing
/// else has `OriginOnlyRole`; an internal function (log lines only) `LogsOnlyRole`.
pub fn role_name(f: &Function) -> String {
    if f.internal {
        return "LogsOnlyRole".to_owned();
    }
    let l = &f.lambda;
    let mut parts: Vec<&str> = Vec::new();
    match l.table {
        Table::None => {}
        Table::Read => parts.push("TableRead"),
        Table::Write if writes_audit(f) => parts.push("TableWriteAudit"),
        Table::Write => parts.push("TableWrite"),
        Table::GetItem => parts.push("AppItems"),
    }
    if l.messages {
        parts.push("Messages");
    }
    if l.images == Images::Invoke {
        parts.push("ImageDecoder");
    }
    let keys: Vec<&str> = l
        .keys
        .iter()
        .filter(|p| p.distributed())
        .map(|p| p.name())
        .collect();
    if !keys.is_empty() {
        parts.push("Keys");
        parts.extend(keys);
    }
    let secret = l.fed.secret().map(|f| f.secret());
    if let Some(secret) = &secret {
        parts.push(secret);
    }
    match l.s3 {
        S3::None => {}
        S3::AvatarWrite => parts.push("AvatarWrite"),
        S3::AvatarRead => parts.push("AvatarRead"),
        S3::WebIndex => parts.push("WebIndex"),
    }
    match l.kms {
        Kms::None => {}
        Kms::Sign => parts.push("OidcSign"),
        Kms::PublicKeys => parts.push("OidcPublicKeys"),
        Kms::SignLogout => parts.push("LogoutSign"),
        Kms::Jwks => parts.push("Jwks"),
    }
    if parts.is_empty() {
        parts.push("OriginOnly");
    }
    format!("{}Role", parts.concat())
}

/// The function's inline statements, indented for a role's `Policies` (two more spaces than
/// under a function's `Policies: - Statement:`).
fn statements(f: &Function, cell: Cell) -> String {
    if f.internal {
        return String::new();
    }
    inline_statements(&f.lambda, cell)
        .lines()
        .map(|line| format!("  {line}\n"))
        .collect()
}

/// The shared roles of `fns`, in the order their first function comes in the table. An error
/// names two functions whose rows give one name to two different permission sets.
pub fn shared_roles(fns: &[Function]) -> Result<Vec<SharedRole>, String> {
    shared_roles_in(fns, Cell::Global)
}

/// The shared roles of `fns` in `cell`'s stack: the same names and functions in every cell (a
/// role's name says what it may do, not how: `Messages` sends through SES and SNS in `global`
/// and reads the providers' secrets in `cn`).
pub fn shared_roles_in(fns: &[Function], cell: Cell) -> Result<Vec<SharedRole>, String> {
    let mut out: Vec<SharedRole> = Vec::new();
    for f in fns.iter().filter(|f| has_shared_role(f)) {
        let name = role_name(f);
        let (managed, statements) = (managed(f), statements(f, cell));
        let console = matches!(f.auth, Auth::Console(_));
        match out.iter_mut().find(|r| r.name == name) {
            Some(r) => {
                if r.managed != managed || r.statements != statements {
                    return Err(format!(
                        "{}: the role name {name} of {} is another permission set",
                        f.logical_id(),
                        r.functions[0]
                    ));
                }
                r.functions.push(f.logical_id());
                r.console_only &= console;
            }
            None => out.push(SharedRole {
                name,
                functions: vec![f.logical_id()],
                console_only: console,
                managed,
                statements,
            }),
        }
    }
    Ok(out)
}

/// The roles, as template.yaml resources.
pub fn render(roles: &[SharedRole]) -> String {
    let mut s = String::new();
    for r in roles {
        let users = if r.functions.len() == 1 {
            r.functions[0].clone()
        } else {
            format!("{} functions", r.functions.len())
        };
        let _ = write!(
            s,
            "  {name}:
    Type: AWS::IAM::Role
    Properties:
      Description: {description}
      AssumeRolePolicyDocument:
        Version: \"2012-10-17\"
        Statement:
          - Effect: Allow
            Principal:
              Service: [lambda.amazonaws.com]
            Action: [sts:AssumeRole]
      ManagedPolicyArns:
        - {BASIC_EXECUTION}
",
            name = r.name,
            description = crate::quoted(&format!(
                "Ciam, one permission set ({users}): docs/operations.md §2"
            )),
        );
        for m in &r.managed {
            let _ = writeln!(s, "        - !Ref {m}");
        }
        if !r.statements.is_empty() {
            let _ = write!(
                s,
                "      Policies:
        - PolicyName: {name}
          PolicyDocument:
            Version: \"2012-10-17\"
            Statement:
{statements}",
                name = r.name,
                statements = r.statements
            );
        }
        s.push_str(
            "      Tags:
        - Key: CiamStack
          Value: !Ref AWS::StackName

",
        );
    }
    s
}

/// The table of docs/operations.md §2 under the action table: each role and its functions.
pub fn render_table(roles: &[SharedRole]) -> String {
    let mut s = String::from("\n| Role (one per permission set) | Functions |\n|---|---|\n");
    for r in roles {
        let _ = writeln!(s, "| {} | {} |", r.name, r.functions.join(", "));
    }
    s
}
