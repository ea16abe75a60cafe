//! The pre-traffic check of the gradual rows (issue 30 item 10, `ciam_lambdas::hook`,
//! docs/operations.md §7 "The pre-traffic check"): one function for every gradual row, named
//! `CodeDeployHook_<stack id>` (SAM's CodeDeploy role, `AWSCodeDeployRoleForLambda`, may invoke
//! only `CodeDeployHook_*` functions), and its own role, written here in full: it may invoke the
//! gradual functions' numbered versions (never their alias or `$LATEST`), read a deployment, its
//! AppSpec and report its hook's status in the stack's CodeDeploy application only, and read the
//! origin secret. Each gradual row's `DeploymentPreference` names it (`Hooks.PreTraffic`). Two resources
//! whatever the number of gradual rows (the stack budget, docs/operations.md §7).

use crate::roles::BASIC_EXECUTION;
use crate::{quoted, Function, ALIAS};
use std::fmt::Write as _;

/// The hook function's logical id; its role is `<this>Role`.
pub const LOGICAL_ID: &str = "PreTrafficHookFunction";
/// Its `CIAM_ROUTE` (it serves no route: infra/tests/template_facts.py leaves it out of the
/// route functions, as the key distributor).
pub const ID: &str = "pre_traffic_hook";
/// The binary (functions/lambdas/src/bin/hook.rs).
pub const BINARY: &str = "hook";
/// The prefix SAM's CodeDeploy role may invoke.
pub const NAME_PREFIX: &str = "CodeDeployHook_";

/// The gradual rows the hook checks.
fn gradual(fns: &[Function]) -> impl Iterator<Item = &Function> {
    fns.iter().filter(|f| f.lambda.gradual && !f.internal)
}

/// `CIAM_HOOK_TARGETS`: `<function name>=<METHOD> <path>` of each gradual row (the names are
/// CloudFormation's, so a `!Sub`).
fn targets(fns: &[Function]) -> String {
    let list: Vec<String> = gradual(fns)
        .map(|f| format!("${{{}}}={} {}", f.logical_id(), f.method, f.path))
        .collect();
    quoted(&list.join(","))
}

/// The hook function and its role; nothing when no row is gradual.
pub fn render(fns: &[Function]) -> String {
    if gradual(fns).next().is_none() {
        return String::new();
    }
    let invoke: String = gradual(fns)
        .map(|f| {
            format!(
                "                  - !Sub \"${{{}.Arn}}:*\"\n",
                f.logical_id()
            )
        })
        .collect();
    let never: String = gradual(fns)
        .flat_map(|f| {
            let id = f.logical_id();
            [
                format!("                  - !Sub \"${{{id}.Arn}}:{ALIAS}\"\n"),
                format!("                  - !Sub \"${{{id}.Arn}}:$LATEST\"\n"),
            ]
        })
        .collect();
    let mut s = String::new();
    let _ = write!(
        s,
        "  # The pre-traffic check (issue 30 item 10, docs/operations.md §7): before CodeDeploy shifts
  # a gradual function's alias to a new version, this invokes that version with a request of
  # its own route and reports Succeeded only for a Ciam answer, so a version that cannot start
  # never takes traffic, however little the function sees.
  {LOGICAL_ID}:
    Type: AWS::Serverless::Function
    Metadata:
      BuildMethod: rust-cargolambda
      BuildProperties:
        Binary: {BINARY}
    Properties:
      # SAM's CodeDeploy role may invoke only `{NAME_PREFIX}*`; the stack's id keeps the name
      # unique and within Lambda's 64 characters whatever the stack's name.
      FunctionName: !Sub
        - \"{NAME_PREFIX}${{Id}}\"
        - Id: !Select [2, !Split [\"/\", !Ref AWS::StackId]]
      Description: {description}
      MemorySize: 128
      Timeout: 60
      Role: !GetAtt {LOGICAL_ID}Role.Arn
      LoggingConfig:
        LogGroup: !Ref FunctionLogs
      Environment:
        Variables:
          CIAM_ROUTE: {ID}
          CIAM_HOOK_TARGETS: !Sub {targets}

  {LOGICAL_ID}Role:
    Type: AWS::IAM::Role
    Properties:
      Description: \"The role of the pre-traffic check only\"
      AssumeRolePolicyDocument:
        Version: \"2012-10-17\"
        Statement:
          - Effect: Allow
            Principal: {{Service: lambda.amazonaws.com}}
            Action: sts:AssumeRole
      ManagedPolicyArns:
        - {BASIC_EXECUTION}
      Policies:
        - PolicyName: {ID}
          PolicyDocument:
            Version: \"2012-10-17\"
            Statement:
              - Sid: InvokeTheGradualFunctionsVersions
                Effect: Allow
                Action: lambda:InvokeFunction
                Resource:
{invoke}              # `:*` matches the alias and $LATEST too: the check runs the version being deployed only.
              - Sid: NeverTheAliasOrLatest
                Effect: Deny
                Action: lambda:InvokeFunction
                Resource:
{never}              - Sid: ReadTheDeploymentAndReportItsHook
                Effect: Allow
                Action:
                  - codedeploy:GetDeployment
                  - codedeploy:PutLifecycleEventHookExecutionStatus
                Resource: !Sub \"arn:${{AWS::Partition}}:codedeploy:${{AWS::Region}}:${{AWS::AccountId}}:deploymentgroup:${{ServerlessDeploymentApplication}}/*\"
              # GetDeployment leaves the AppSpec's content out: the revision of the application gives it.
              - Sid: ReadTheDeploymentsAppSpec
                Effect: Allow
                Action: codedeploy:GetApplicationRevision
                Resource: !Sub \"arn:${{AWS::Partition}}:codedeploy:${{AWS::Region}}:${{AWS::AccountId}}:application:${{ServerlessDeploymentApplication}}\"
              - Sid: ReadTheOriginHeader
                Effect: Allow
                Action: secretsmanager:GetSecretValue
                Resource: !Ref OriginSecret

",
        description = quoted(
            "internal - Checks a gradual function's new version before CodeDeploy shifts traffic to it (no route: CodeDeploy invokes it)"
        ),
        targets = targets(fns),
    );
    s
}
