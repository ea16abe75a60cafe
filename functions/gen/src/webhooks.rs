//! Over 500 lines because the pipeline's queues, functions, roles, event source filters and alarms are one generated region, read together.
//! The template's webhook pipeline (issue 23, docs/events-design.md §2), generated from the two
//! rows of `ciam_api::WEBHOOK_FUNCTIONS` and the partition prefixes the domain writes, so the
//! roles' `dynamodb:LeadingKeys` conditions cannot drift from the code.
//!
//! The table's stream (`NEW_IMAGE`) → an event source mapping whose filters pass inserted
//! `EVT#` items (and replays), the audit tripwire's records and password sign-ins' sessions (the
//! console's numbers, counted by the fan-out: [`tally_filter`], `UpdateItem` on
//! [`TALLY_WRITES`] only), nothing else → the fan-out function → two fair queues (standard queues whose
//! `MessageGroupId` is the app: the events queue, and the sign-out's logout notices' own queue)
//! → the delivery function (one mapping per queue); a failed attempt is re-sent delayed (nothing
//! stays in flight), a message the function keeps failing on goes to the dead-letter queue, a
//! stream batch the fan-out cannot handle to a standard queue. Alarms: a new dead letter (each
//! one pages: the alarm watches arrivals, not depth), the oldest message's age of each queue, an
//! endpoint failing every delivery (the delivery function's `FailingSeconds` metric).
//! Each function has its own role, written here in full: SAM's defaults for stream and queue
//! sources (`AWSLambdaDynamoDBExecutionRole`, `AWSLambdaSQSQueueExecutionRole`) allow every
//! stream and every queue of the account.

use crate::policy::{ciam_lambdas_var, inline_statements, key_secrets, provider_env, LOGOUT_KEY};
use crate::roles::BASIC_EXECUTION;
use crate::{quoted, Cell};
use ciam_api::{InternalDef, Lambda, WEBHOOK_DELIVERY, WEBHOOK_FANOUT};
use std::fmt::Write as _;

/// The partition prefixes of a partner app's endpoints and of an endpoint's delivery log.
const ENDPOINT_PK_PREFIX: &str = ciam_core::webhooks::PK_PREFIX;
const DELIVERY_PK_PREFIX: &str = ciam_core::webhooks::log::PK_PREFIX;
/// The registry's replays: deliveries written as items of this partition, sent on by the
/// fan-out (the one partition it deletes from).
const REPLAY_PK: &str = ciam_core::webhooks::queue::QUEUE_PK;

/// The apps' partition (one `APPS` partition, exact): a logout notice's URLs.
const APPS_PK: &str = ciam_core::apps::APPS_PK;
/// The records of which apps a session signed in to (`SESSAPP#<userId>`): the fan-out reads
/// the ended sessions' and deletes them once their notices are queued.
const SESSION_APPS_PK_PREFIX: &str = ciam_core::app_sessions::PK_PREFIX;
/// The partitions the fan-out reads: the user's consents (`USER#<id>` / `CONSENT#...`), the
/// consented apps' endpoints, the ended sessions' apps (and, exactly, the `APPS` partition).
/// (And the events: a coalesced `user.updated` is read again once its window ends.)
const FANOUT_READS: [&str; 4] = [
    "USER#",
    ENDPOINT_PK_PREFIX,
    SESSION_APPS_PK_PREFIX,
    ciam_core::events::PK_PREFIX,
];
/// The partitions the delivery reads (the endpoints, with their sealed secrets; exactly, the
/// `APPS` partition for a notice's URL) and writes (the delivery log, an endpoint's failure
/// state).
const DELIVERY_READS: [&str; 1] = [ENDPOINT_PK_PREFIX];
const DELIVERY_WRITES: [&str; 2] = [ENDPOINT_PK_PREFIX, DELIVERY_PK_PREFIX];
/// The partitions the fan-out's tally of password sign-ins writes (`ciam_core::numbers::tally`):
/// the user item's `activeDay` (its conditional update, once a day per account) and the
/// counters' shards (`STATS#<week>#<shard>`, `STATS#<month>#<shard>`). Its only read, the user
/// item, is among [`FANOUT_READS`].
pub const TALLY_WRITES: [&str; 2] = ["USER#", "STATS#"];

/// The stream filter: inserted event items and replayed deliveries, nothing else of the table.
pub fn stream_filter() -> String {
    format!(
        r#"{{"eventName": ["INSERT"], "dynamodb": {{"Keys": {{"pk": {{"S": [{{"prefix": "{}"}}, "{}"]}}}}}}}}"#,
        ciam_core::events::PK_PREFIX,
        REPLAY_PK
    )
}

/// The stream filter of the console's numbers: an inserted session carrying a password
/// sign-in to count (`ciam_core::numbers::is_tallied`: a `SESSION#` item with
/// `numbers::TALLY_METHOD`, a string). Lambda's `exists` matches a leaf only, hence the
/// attribute's type (`S`) in the pattern. A session's later changes (its refresh: `MODIFY`) and
/// the sessions of other sign-ins (no `tm`) stay out.
pub fn tally_filter() -> String {
    format!(
        r#"{{"eventName": ["INSERT"], "dynamodb": {{"Keys": {{"sk": {{"S": [{{"prefix": "SESSION#"}}]}}}}, "NewImage": {{"{}": {{"S": [{{"exists": true}}]}}}}}}}}"#,
        ciam_core::numbers::TALLY_METHOD
    )
}

pub fn stem(f: &InternalDef) -> String {
    f.id.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn leading_keys(prefixes: &[&str]) -> String {
    let list: Vec<String> = prefixes.iter().map(|p| quoted(&format!("{p}*"))).collect();
    format!(
        "                Condition:
                  ForAllValues:StringLike:
                    dynamodb:LeadingKeys: [{}]
",
        list.join(", ")
    )
}

/// Partitions by prefix (`prefixes`) or exactly (`exact`), in one condition.
fn some_keys(prefixes: &[&str], exact: &[&str]) -> String {
    let mut list: Vec<String> = prefixes.iter().map(|p| quoted(&format!("{p}*"))).collect();
    list.extend(exact.iter().map(|k| quoted(k)));
    format!(
        "                Condition:
                  ForAllValues:StringLike:
                    dynamodb:LeadingKeys: [{}]
",
        list.join(", ")
    )
}

fn exact_keys(keys: &[&str]) -> String {
    let list: Vec<String> = keys.iter().map(|k| quoted(k)).collect();
    format!(
        "                Condition:
                  ForAllValues:StringEquals:
                    dynamodb:LeadingKeys: [{}]
",
        list.join(", ")
    )
}

/// A role for one function (`<Stem>FunctionRole`, the name SAM would give it): the basic
/// execution policy every function has (its log lines), then `statements`.
fn role(f: &InternalDef, statements: &str) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "  {stem}FunctionRole:
    Type: AWS::IAM::Role
    Properties:
      Description: {description}
      AssumeRolePolicyDocument:
        Version: \"2012-10-17\"
        Statement:
          - Effect: Allow
            Principal: {{Service: lambda.amazonaws.com}}
            Action: sts:AssumeRole
      ManagedPolicyArns:
        - {BASIC_EXECUTION}
      Policies:
        - PolicyName: {id}
          PolicyDocument:
            Version: \"2012-10-17\"
            Statement:
",
        stem = stem(f),
        description = quoted(&format!("The role of {} only", f.id)),
        id = f.id,
    );
    s.push_str(statements);
    s.push('\n');
    s
}

/// The row's own statements (mail and SMS, key secrets), re-indented under a role's policy.
fn row_statements(l: &Lambda, cell: Cell) -> String {
    inline_statements(l, cell)
        .lines()
        .map(|line| format!("  {line}\n"))
        .collect()
}

fn function(f: &InternalDef, env: &str, events: &str) -> String {
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
      Role: !GetAtt {stem}FunctionRole.Arn
      LoggingConfig:
        LogGroup: !Ref FunctionLogs
      Environment:
        Variables:
          CIAM_ROUTE: {id}
          CIAM_WEBHOOK_QUEUE_URL: !Ref WebhookQueue
          CIAM_WEBHOOK_NOTICE_QUEUE_URL: !Ref WebhookNoticeQueue
{env}      Events:
{events}
",
        stem = stem(f),
        binary = ciam_api::Binary::Webhooks.name(),
        description = quoted(&format!("internal - {}", f.summary)),
        memory = f.lambda.memory,
        timeout = f.lambda.timeout,
        id = f.id,
    );
    s
}

fn key_env(l: &Lambda, cell: Cell) -> String {
    let mut s: String = key_secrets(l)
        .map(|p| format!("          {}: !Ref {p}KeySecret\n", ciam_lambdas_var(p)))
        .collect();
    s.push_str(&provider_env(l, cell));
    if l.kms == ciam_api::Kms::SignLogout {
        let _ = writeln!(s, "          CIAM_LOGOUT_KMS_KEY_ID: {}", LOGOUT_KEY);
    }
    s
}

/// What an alarm watches.
enum Watch<'a> {
    /// The Maximum of one metric over 5 minutes, with one dimension (name, value) or none.
    Metric {
        namespace: &'a str,
        metric: &'a str,
        dimension: Option<(&'a str, String)>,
    },
    /// Messages **arriving** in a queue (its depth's rise from one minute to the next): a
    /// second poison message pages again even while the first is still there (an alarm on depth
    /// would stay in ALARM and say nothing more). SQS's `NumberOfMessagesSent` does not count the
    /// messages a redrive moves, hence the depth's difference.
    Arrivals { queue: &'a str },
}

/// One alarm of the pipeline (`name`), paging the on-call topic and telling it OK again, its
/// description `what` and then its runbook entry (docs/operations.md §8.6); it alarms when
/// `evaluations` periods in a row are above `threshold` (or at least `threshold`, `at_least`).
/// Missing data (a quiet pipeline) is not a breach.
struct Alarm<'a> {
    name: &'a str,
    what: &'a str,
    watch: Watch<'a>,
    evaluations: u32,
    threshold: u32,
    at_least: bool,
}

impl Alarm<'_> {
    fn render(&self) -> String {
        let mut s = String::new();
        let description = quoted(&format!(
            "{} On-call: docs/operations.md §8.6 \"{}\".",
            self.what, self.name
        ));
        let _ = write!(
            s,
            "  {}:
    Type: AWS::CloudWatch::Alarm
    Properties:
      AlarmDescription: {description}
",
            self.name
        );
        match &self.watch {
            Watch::Metric {
                namespace,
                metric,
                dimension,
            } => {
                let _ = write!(
                    s,
                    "      Namespace: {namespace}
      MetricName: {metric}
"
                );
                if let Some((name, value)) = dimension {
                    let _ = write!(
                        s,
                        "      Dimensions:
        - Name: {name}
          Value: {value}
"
                    );
                }
                s.push_str(
                    "      Statistic: Maximum
      Period: 300
",
                );
            }
            Watch::Arrivals { queue } => {
                let _ = write!(
                    s,
                    "      Metrics:
        - Id: depth
          ReturnData: false
          MetricStat:
            Metric:
              Namespace: AWS/SQS
              MetricName: ApproximateNumberOfMessagesVisible
              Dimensions:
                - Name: QueueName
                  Value: !GetAtt {queue}.QueueName
            Period: 60
            Stat: Maximum
        - Id: arrived
          Expression: DIFF(FILL(depth, 0))
          Label: Messages arrived
          ReturnData: true
"
                );
            }
        }
        let _ = write!(
            s,
            "      EvaluationPeriods: {evaluations}
      Threshold: {threshold}
      ComparisonOperator: {comparison}
      TreatMissingData: notBreaching
      AlarmActions: [!Ref AlarmTopic]
      OKActions: [!Ref AlarmTopic]

",
            evaluations = self.evaluations,
            threshold = self.threshold,
            comparison = if self.at_least {
                "GreaterThanOrEqualToThreshold"
            } else {
                "GreaterThanThreshold"
            },
        );
        s
    }
}

/// The Maximum of an SQS metric of `queue`.
fn of_queue<'a>(metric: &'a str, queue: &str) -> Watch<'a> {
    Watch::Metric {
        namespace: "AWS/SQS",
        metric,
        dimension: Some(("QueueName", format!("!GetAtt {queue}.QueueName"))),
    }
}

/// One delivery queue: a fair queue (standard; the senders set `MessageGroupId` to the app),
/// kept 4 days (longer than the 24 h of retries: nothing expires unseen), its poison messages to
/// the dead letters after 5 receipts.
fn delivery_queue(name: &str, visibility: u32) -> String {
    format!(
        "  {name}:
    Type: AWS::SQS::Queue
    Properties:
      # At least six times the delivery function's timeout (Lambda's advice for a queue source).
      VisibilityTimeout: {visibility}
      MessageRetentionPeriod: {retention}
      SqsManagedSseEnabled: true
      RedrivePolicy:
        deadLetterTargetArn: !GetAtt WebhookDeadLetters.Arn
        maxReceiveCount: {receipts}

",
        retention = RETENTION_SECS,
        receipts = MAX_RECEIVES,
    )
}

/// How long a delivery queue keeps a message: 4 days, more than the 24 h retry window.
pub const RETENTION_SECS: u32 = 4 * 86_400;
/// Receipts of a message the delivery function fails on (an error, not a failed attempt: those
/// are re-sent as new messages) before it is a dead letter.
pub const MAX_RECEIVES: u32 = 5;
/// The oldest message's age that pages, per queue: above SQS's longest delay (a retry waits at
/// most 15 minutes in the queue), so only a queue nobody drains pages.
pub const EVENTS_AGE_SECS: u32 = 1800;
pub const NOTICES_AGE_SECS: u32 = 1200;
/// How long an endpoint may fail every delivery before it pages (it is disabled after 3 days).
pub const FAILING_SECS: u32 = 6 * 3600;
/// How old the fan-out's stream records may get (Lambda's `IteratorAge`, ms) for 15 minutes
/// before it pages.
pub const FANOUT_AGE_MS: u32 = 600_000;
/// The namespace of the delivery function's metrics (`ciam_lambdas::webhooks::METRIC_NAMESPACE`).
const METRIC_NAMESPACE: &str = "Ciam/Webhooks";

/// The region `webhooks` of template.yaml.
pub fn render() -> String {
    render_in(Cell::Global)
}

/// The region `webhooks` of `cell`'s stack (the delivery's mail: SES or the relay's secret).
pub fn render_in(cell: Cell) -> String {
    let visibility = 6 * WEBHOOK_DELIVERY.lambda.timeout;
    let mut s = String::from(
        "  # The delivery queues: fair queues (standard queues; each message's MessageGroupId is
  # its app), so one app's backlog or slow endpoint does not raise another app's wait. The
  # sign-out's logout notices have their own queue. A failed attempt is deleted and sent again
  # with a delay (the backoff), never left in flight; after 24 hours the domain gives up and logs
  # it (replayable), so what reaches the dead letters is a message the function kept failing on.
",
    );
    s.push_str(&delivery_queue("WebhookQueue", visibility));
    s.push_str(&delivery_queue("WebhookNoticeQueue", visibility));
    s.push_str(
        "  WebhookDeadLetters:
    Type: AWS::SQS::Queue
    Properties:
      MessageRetentionPeriod: 1209600
      SqsManagedSseEnabled: true

  WebhookFanoutFailures:
    Type: AWS::SQS::Queue
    Properties:
      MessageRetentionPeriod: 1209600
      SqsManagedSseEnabled: true

",
    );
    let fanout = format!(
        "              - Sid: ReadTheTableStream
                Effect: Allow
                Action: [dynamodb:DescribeStream, dynamodb:GetRecords, dynamodb:GetShardIterator, dynamodb:ListStreams]
                Resource: !Sub \"${{Table.Arn}}/stream/*\"
              - Sid: ReadConsentsAndEndpoints
                Effect: Allow
                Action: [dynamodb:GetItem, dynamodb:BatchGetItem, dynamodb:Query]
                Resource: !GetAtt Table.Arn
{reads}              - Sid: RemoveSentReplays
                Effect: Allow
                Action: dynamodb:DeleteItem
                Resource: !GetAtt Table.Arn
{replays}              - Sid: RemoveNotifiedSessionApps
                Effect: Allow
                Action: dynamodb:DeleteItem
                Resource: !GetAtt Table.Arn
{notified}              - Sid: CountSignInsFromTheStream
                Effect: Allow
                Action: dynamodb:UpdateItem
                Resource: !GetAtt Table.Arn
{tally}              - Sid: AuditEntriesAreAppendOnly
                Effect: Deny
                Action: [dynamodb:UpdateItem, dynamodb:DeleteItem]
                Resource: !GetAtt Table.Arn
                Condition:
                  ForAnyValue:StringLike:
                    dynamodb:LeadingKeys: [\"AUDIT#*\"]
              - Sid: SendDeliveries
                Effect: Allow
                Action: sqs:SendMessage
                Resource: [!GetAtt WebhookQueue.Arn, !GetAtt WebhookNoticeQueue.Arn]
              - Sid: SetAsideFailedBatches
                Effect: Allow
                Action: sqs:SendMessage
                Resource: !GetAtt WebhookFanoutFailures.Arn
{row}",
        reads = some_keys(&FANOUT_READS, &[APPS_PK]),
        replays = exact_keys(&[REPLAY_PK]),
        notified = leading_keys(&[SESSION_APPS_PK_PREFIX]),
        tally = leading_keys(&TALLY_WRITES),
        row = row_statements(&WEBHOOK_FANOUT.lambda, cell),
    );
    s.push_str(&role(&WEBHOOK_FANOUT, &fanout));
    let delivery = format!(
        "              - Sid: TakeDeliveries
                Effect: Allow
                Action: [sqs:ReceiveMessage, sqs:DeleteMessage, sqs:GetQueueAttributes]
                Resource: [!GetAtt WebhookQueue.Arn, !GetAtt WebhookNoticeQueue.Arn]
              - Sid: SendRetriesAgain
                Effect: Allow
                Action: sqs:SendMessage
                Resource: [!GetAtt WebhookQueue.Arn, !GetAtt WebhookNoticeQueue.Arn]
              - Sid: ReadEndpointsAndApps
                Effect: Allow
                Action: [dynamodb:GetItem, dynamodb:BatchGetItem]
                Resource: !GetAtt Table.Arn
{reads}              - Sid: WriteTheDeliveryLog
                Effect: Allow
                Action: [dynamodb:PutItem, dynamodb:UpdateItem]
                Resource: !GetAtt Table.Arn
{writes}              - Sid: AuditEntriesAreAppendOnly
                Effect: Deny
                Action: [dynamodb:UpdateItem, dynamodb:DeleteItem]
                Resource: !GetAtt Table.Arn
                Condition:
                  ForAnyValue:StringLike:
                    dynamodb:LeadingKeys: [\"AUDIT#*\"]
{row}",
        reads = some_keys(&DELIVERY_READS, &[APPS_PK]),
        writes = leading_keys(&DELIVERY_WRITES),
        row = row_statements(&WEBHOOK_DELIVERY.lambda, cell),
    );
    s.push_str(&role(&WEBHOOK_DELIVERY, &delivery));
    let stream = format!(
        "        Outbox:
          Type: DynamoDB
          Properties:
            Stream: !GetAtt Table.StreamArn
            StartingPosition: TRIM_HORIZON
            BatchSize: 100
            MaximumBatchingWindowInSeconds: 1
            # Records older than a day are the failures queue's (the deliveries' own window).
            MaximumRecordAgeInSeconds: 86400
            MaximumRetryAttempts: 50
            BisectBatchOnFunctionError: true
            FunctionResponseTypes: [ReportBatchItemFailures]
            DestinationConfig:
              OnFailure:
                Destination: !GetAtt WebhookFanoutFailures.Arn
            FilterCriteria:
              Filters:
                - Pattern: {filter}
                # The audit log's tripwire (crate::audit): a changed or removed AUDIT# entry.
                - Pattern: {audit}
                # The console's numbers: a password sign-in's session, counted by the fan-out.
                - Pattern: {tally}",
        filter = quoted(&stream_filter()),
        audit = quoted(&crate::audit::stream_filter()),
        tally = quoted(&tally_filter()),
    );
    s.push_str(&function(
        &WEBHOOK_FANOUT,
        &key_env(&WEBHOOK_FANOUT.lambda, cell),
        &stream,
    ));
    let queue = "        Deliveries:
          Type: SQS
          Properties:
            Queue: !GetAtt WebhookQueue.Arn
            BatchSize: 1
            FunctionResponseTypes: [ReportBatchItemFailures]
            ScalingConfig:
              MaximumConcurrency: 20
        Notices:
          Type: SQS
          Properties:
            Queue: !GetAtt WebhookNoticeQueue.Arn
            BatchSize: 1
            FunctionResponseTypes: [ReportBatchItemFailures]
            ScalingConfig:
              MaximumConcurrency: 10";
    s.push_str(&function(
        &WEBHOOK_DELIVERY,
        &key_env(&WEBHOOK_DELIVERY.lambda, cell),
        queue,
    ));
    let alarms = [
        Alarm {
            name: "WebhookDeadLettersAlarm",
            what: "A webhook delivery or logout notice made the delivery function fail 5 times: it is in the dead-letter queue, not delivered (each new one pages again).",
            watch: Watch::Arrivals {
                queue: "WebhookDeadLetters",
            },
            evaluations: 1,
            threshold: 0,
            at_least: false,
        },
        Alarm {
            name: "WebhookQueueAgeAlarm",
            what: "Partner events wait in the delivery queue for more than 30 minutes: the delivery function is not draining it.",
            watch: of_queue("ApproximateAgeOfOldestMessage", "WebhookQueue"),
            evaluations: 1,
            threshold: EVENTS_AGE_SECS,
            at_least: false,
        },
        Alarm {
            name: "WebhookNoticeQueueAgeAlarm",
            what: "Logout notices wait in their queue for more than 20 minutes: partner apps keep signed-out sessions meanwhile.",
            watch: of_queue("ApproximateAgeOfOldestMessage", "WebhookNoticeQueue"),
            evaluations: 1,
            threshold: NOTICES_AGE_SECS,
            at_least: false,
        },
        Alarm {
            name: "WebhookEndpointFailingAlarm",
            what: "A partner endpoint has failed every delivery for more than 6 hours (the delivery function's metric Ciam/Webhooks FailingSeconds; per app and endpoint: Failed by AppId, EndpointId).",
            watch: Watch::Metric {
                namespace: METRIC_NAMESPACE,
                metric: "FailingSeconds",
                dimension: None,
            },
            evaluations: 1,
            threshold: FAILING_SECS,
            at_least: false,
        },
        Alarm {
            name: "WebhookFanoutFailuresAlarm",
            what: "Partner events could not be fanned out from the table's stream for a day or 50 tries: they are set aside, not delivered.",
            watch: of_queue("ApproximateNumberOfMessagesVisible", "WebhookFanoutFailures"),
            evaluations: 1,
            threshold: 1,
            at_least: true,
        },
        Alarm {
            name: "WebhookFanoutAgeAlarm",
            what: "Partner events wait more than 10 minutes in the table's stream: the fan-out is failing or throttled.",
            watch: Watch::Metric {
                namespace: "AWS/Lambda",
                metric: "IteratorAge",
                dimension: Some(("FunctionName", "!Ref WebhookFanoutFunction".to_owned())),
            },
            evaluations: 3,
            threshold: FANOUT_AGE_MS,
            at_least: false,
        },
    ];
    for a in &alarms {
        s.push_str(&a.render());
    }
    // The region ends at its last alarm's last line.
    while s.ends_with("\n\n") {
        s.pop();
    }
    s
}

/// The function's row of docs/operations.md §2 (actions, resources), as its role above allows.
pub fn actions(f: &InternalDef) -> (Vec<String>, Vec<String>) {
    let l = &f.lambda;
    let keys: Vec<String> = key_secrets(l).map(|p| format!("{p}KeySecret")).collect();
    let mut rows: Vec<(String, String)> = Vec::new();
    if f.id == WEBHOOK_FANOUT.id {
        rows.push((
            "`dynamodb:{DescribeStream,GetRecords,GetShardIterator,ListStreams}`".into(),
            "Table's stream".into(),
        ));
        rows.push((
            "`dynamodb:{GetItem,BatchGetItem,Query}`".into(),
            format!("Table, partitions {}, `{APPS_PK}`", prefixes(&FANOUT_READS)),
        ));
        rows.push((
            "`dynamodb:DeleteItem`".into(),
            format!(
                "Table, partitions `{REPLAY_PK}` (replays sent on), `{SESSION_APPS_PK_PREFIX}*` (sessions notified)"
            ),
        ));
        rows.push((
            "`dynamodb:UpdateItem`".into(),
            format!(
                "Table, partitions {} (the sign-ins counted from the stream)",
                prefixes(&TALLY_WRITES)
            ),
        ));
        rows.push((
            "`sqs:SendMessage`".into(),
            "WebhookQueue, WebhookNoticeQueue, WebhookFanoutFailures".into(),
        ));
    } else {
        rows.push((
            "`sqs:{ReceiveMessage,DeleteMessage,GetQueueAttributes,SendMessage}`".into(),
            "WebhookQueue, WebhookNoticeQueue".into(),
        ));
        rows.push((
            "`dynamodb:{GetItem,BatchGetItem,PutItem,UpdateItem}`".into(),
            format!(
                "Table, partitions {}, `{APPS_PK}` (reads), {} (writes)",
                prefixes(&DELIVERY_READS),
                prefixes(&DELIVERY_WRITES)
            ),
        ));
    }
    if l.kms == ciam_api::Kms::SignLogout {
        rows.push((
            "`kms:{Sign,GetPublicKey}`".into(),
            "LogoutSigningKey".into(),
        ));
    }
    if l.messages {
        rows.push((
            "`ses:SendEmail`".into(),
            "SES identity MailFrom and its domain".into(),
        ));
    }
    if l.sms {
        rows.push(("`sns:Publish`".into(), "SMS (no topic)".into()));
    }
    if !keys.is_empty() {
        rows.push(("`secretsmanager:GetSecretValue`".into(), keys.join(", ")));
    }
    rows.into_iter().unzip()
}

fn prefixes(p: &[&str]) -> String {
    p.iter()
        .map(|p| format!("`{p}*`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use ciam_core::numbers::{month_shard, week_shard, Day, TALLY_METHOD};

    #[test]
    fn the_tally_may_write_the_partitions_the_numbers_write_and_its_filter_is_the_sessions() {
        let day = Day::of(1_764_633_600);
        for key in [
            week_shard(day, 7),
            month_shard(day, 0),
            ciam_core::user::profile_key("u1"),
        ] {
            assert!(
                TALLY_WRITES.iter().any(|p| key.pk.starts_with(p)),
                "{}",
                key.pk
            );
        }
        let f: serde_json::Value = serde_json::from_str(&tally_filter()).unwrap();
        assert_eq!(
            f,
            serde_json::json!({
                "eventName": ["INSERT"],
                "dynamodb": {
                    "Keys": {"sk": {"S": [{"prefix": "SESSION#"}]}},
                    "NewImage": {TALLY_METHOD: {"S": [{"exists": true}]}}
                }
            })
        );
    }
}
