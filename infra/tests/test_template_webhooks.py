"""The webhook pipeline on AWS (issue 23, docs/events-design.md §2), after the SAM transform: the
table's stream filtered to inserted EVT# items, the fan-out function, the FIFO delivery queue and
its dead letters, the delivery function, each function with a role of its own that allows what
it needs and nothing more (the delivery function reads the endpoints, with their sealed secrets,
and the app items, writes the delivery log, and signs logout tokens with their own KMS key;
it holds no other key and reads no user item)."""

import json

from template_facts import walk

FANOUT, DELIVERY = "WebhookFanoutFunction", "WebhookDeliveryFunction"
BASIC = "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
CURRENT_OIDC_KEY = {"Fn::If": ["OverridesOidcKey", {"Ref": "OidcKmsKeyArn"}, {"Fn::GetAtt": ["OidcSigningKey", "Arn"]}]}
READS = {"dynamodb:GetItem", "dynamodb:BatchGetItem"}


def statements(transformed, role):
    out = []
    for p in transformed["Resources"][role]["Properties"]["Policies"]:
        out.extend(p["PolicyDocument"]["Statement"])
    return out


def actions(stmt):
    a = stmt["Action"]
    return set(a if isinstance(a, list) else [a])


def by_action(transformed, role):
    """action -> the statements that allow it."""
    out = {}
    for s in statements(transformed, role):
        if s["Effect"] == "Deny":
            assert s["Sid"] == "AuditEntriesAreAppendOnly"
            continue
        for a in actions(s):
            out.setdefault(a, []).append(s)
    return out


def leading_keys(stmt):
    return stmt["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]


def mapping_of(transformed, function, kind):
    maps = [
        r for r in transformed["Resources"].values()
        if r["Type"] == "AWS::Lambda::EventSourceMapping"
        and r["Properties"]["FunctionName"] == {"Ref": function}
    ]
    assert len(maps) == 1, maps
    return maps[0]["Properties"]


def test_the_table_streams_new_images_and_only_inserted_events_wake_the_fan_out(template, transformed):
    spec = template["Resources"]["Table"]["Properties"]["StreamSpecification"]
    assert spec == {"StreamViewType": "NEW_IMAGE"}
    m = mapping_of(transformed, FANOUT, "DynamoDB")
    assert m["EventSourceArn"] == {"Fn::GetAtt": ["Table", "StreamArn"]}
    assert m["StartingPosition"] == "TRIM_HORIZON"
    assert m["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert m["BisectBatchOnFunctionError"] is True
    [f] = m["FilterCriteria"]["Filters"]
    pattern = json.loads(f["Pattern"])
    # Committed events, and the deliveries the registry's replay writes (partition WHQ).
    assert pattern == {"eventName": ["INSERT"], "dynamodb": {"Keys": {"pk": {"S": [{"prefix": "EVT#"}, "WHQ"]}}}}
    # A batch that keeps failing is set aside in a standard queue (a stream's on-failure
    # destination cannot be FIFO), never dropped.
    assert m["DestinationConfig"]["OnFailure"]["Destination"] == {"Fn::GetAtt": ["WebhookFanoutFailures", "Arn"]}
    assert m["MaximumRecordAgeInSeconds"] == 86400


def test_deliveries_go_through_a_fifo_queue_with_dead_letters(transformed):
    res = transformed["Resources"]
    q = res["WebhookQueue"]["Properties"]
    assert q["FifoQueue"] is True and q["ContentBasedDeduplication"] is False
    assert q["DeduplicationScope"] == "messageGroup" and q["FifoThroughputLimit"] == "perMessageGroupId"
    assert q["SqsManagedSseEnabled"] is True
    # Retries run 24 hours: the messages live longer than that.
    assert q["MessageRetentionPeriod"] > 86400
    assert q["RedrivePolicy"]["deadLetterTargetArn"] == {"Fn::GetAtt": ["WebhookDeadLetters", "Arn"]}
    dlq = res["WebhookDeadLetters"]["Properties"]
    assert dlq["FifoQueue"] is True and dlq["MessageRetentionPeriod"] == 14 * 86400
    timeout = res[DELIVERY]["Properties"]["Timeout"]
    assert q["VisibilityTimeout"] >= 6 * timeout
    m = mapping_of(transformed, DELIVERY, "SQS")
    assert m["EventSourceArn"] == {"Fn::GetAtt": ["WebhookQueue", "Arn"]}
    assert m["BatchSize"] == 1
    assert m["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert m["ScalingConfig"]["MaximumConcurrency"] >= 2


def test_each_function_runs_the_webhooks_binary_with_a_role_of_its_own(template, transformed):
    for name, route, role in [(FANOUT, "webhook_fanout", "WebhookFanoutFunctionRole"), (DELIVERY, "webhook_delivery", "WebhookDeliveryFunctionRole")]:
        f = template["Resources"][name]
        assert f["Metadata"]["BuildProperties"]["Binary"] == "webhooks"
        env = f["Properties"]["Environment"]["Variables"]
        assert env["CIAM_ROUTE"] == route
        assert env["CIAM_WEBHOOK_QUEUE_URL"] == {"Ref": "WebhookQueue"}
        fn = transformed["Resources"][name]["Properties"]
        assert fn["Role"] == {"Fn::GetAtt": [role, "Arn"]}
        r = transformed["Resources"][role]["Properties"]
        # Only the basic execution policy every function has: SAM's defaults for stream and queue
        # sources allow every stream and every queue of the account.
        assert r["ManagedPolicyArns"] == [BASIC]
        assert r["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "lambda.amazonaws.com"}


def test_the_fan_out_reads_consents_and_endpoints_and_sends_to_the_queue_only(transformed):
    acts = by_action(transformed, "WebhookFanoutFunctionRole")
    assert set(acts) == {
        "dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams",
        "dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:DeleteItem",
        "sqs:SendMessage",
    }
    # Deletes: the replays it sent on, and the records of sessions whose logout notices it queued
    # (their own partition: nothing of the account itself).
    conds = sorted((json.dumps(d["Condition"]) for d in acts["dynamodb:DeleteItem"]))
    assert conds == sorted([
        json.dumps({"ForAllValues:StringEquals": {"dynamodb:LeadingKeys": ["WHQ"]}}),
        json.dumps({"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["SESSAPP#*"]}}),
    ])
    for a in ["dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:DescribeStream", "dynamodb:ListStreams"]:
        assert [s["Resource"] for s in acts[a]] == [{"Fn::Sub": "${Table.Arn}/stream/*"}]
    for a in ["dynamodb:GetItem", "dynamodb:Query"]:
        [s] = acts[a]
        assert s["Resource"] == {"Fn::GetAtt": ["Table", "Arn"]}
        keys = leading_keys(s)
        # The consents, the endpoints, the ended sessions' apps and the app items (exactly `APPS`).
        assert sorted(keys) == ["APPS", "SESSAPP#*", "USER#*", "WHE#*"], keys
    sends = {json.dumps(s["Resource"]) for s in acts["sqs:SendMessage"]}
    assert sends == {json.dumps({"Fn::GetAtt": ["WebhookQueue", "Arn"]}), json.dumps({"Fn::GetAtt": ["WebhookFanoutFailures", "Arn"]})}
    assert not any("secretsmanager" in a or "kms" in a for a in acts)


def test_the_delivery_reads_the_endpoints_and_their_key_and_writes_the_log_only(transformed):
    acts = by_action(transformed, "WebhookDeliveryFunctionRole")
    table = {a for a in acts if a.startswith("dynamodb:")}
    assert table == {"dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}
    for a in table:
        for s in acts[a]:
            keys = leading_keys(s)
            # Never a user's partition (sessions, password hashes), never the outbox's writes.
            assert not any(k.startswith("USER#") for k in keys), keys
            # Partitions by prefix, or exactly the apps' (a logout notice's URL), read only.
            assert all(k.endswith("#*") or (k == "APPS" and a in READS) for k in keys), (a, keys)
    assert [s["Resource"] for s in acts["sqs:ReceiveMessage"]] == [{"Fn::GetAtt": ["WebhookQueue", "Arn"]}]
    assert "sqs:SendMessage" not in acts and "dynamodb:Query" not in acts and "dynamodb:DeleteItem" not in acts
    # Logout tokens are signed at each attempt: kms:Sign (and the public key's kid) on the logout
    # tokens' own key only (issue 30: never the id_token key), never another KMS action.
    kms = {a for a in acts if a.startswith("kms:")}
    assert kms == {"kms:Sign", "kms:GetPublicKey"}
    [sign] = acts["kms:Sign"]
    assert acts["kms:GetPublicKey"] == [sign]
    assert sign["Resource"] == {"Fn::GetAtt": ["LogoutSigningKey", "Arn"]}
    env = transformed["Resources"][DELIVERY]["Properties"]["Environment"]["Variables"]
    assert env["CIAM_LOGOUT_KMS_KEY_ID"] == {"Fn::GetAtt": ["LogoutSigningKey", "Arn"]}
    assert "CIAM_OIDC_KMS_KEY_ID" not in env and "CIAM_OIDC_KMS_PREVIOUS_KEY_IDS" not in env
    fanout = by_action(transformed, "WebhookFanoutFunctionRole")
    assert not any(a.startswith("kms:") for a in fanout)
    # The owner's notice of a disabled endpoint: mail from the deployment's sender only, like every
    # function that mails (the fan-out mails nobody).
    [mail] = acts["ses:SendEmail"]
    assert mail["Condition"] == {"StringEquals": {"ses:FromAddress": {"Ref": "MailFrom"}}}
    assert "ses:SendEmail" not in fanout
    secrets = [s["Resource"] for s in acts.get("secretsmanager:GetSecretValue", [])]
    # Its key purposes' secrets only (the Webhook key unseals the endpoint secrets), never the root.
    for r in secrets:
        for name in (r if isinstance(r, list) else [r]):
            assert name["Ref"].endswith("KeySecret") and name["Ref"] != "RootSecret"


def test_the_pipeline_pages_on_dead_letters_failures_and_lag(transformed):
    res = transformed["Resources"]
    for name, queue in [("WebhookDeadLettersAlarm", "WebhookDeadLetters"), ("WebhookFanoutFailuresAlarm", "WebhookFanoutFailures")]:
        a = res[name]["Properties"]
        assert a["Namespace"] == "AWS/SQS" and a["MetricName"] == "ApproximateNumberOfMessagesVisible"
        assert a["Dimensions"] == [{"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}]
        assert a["Threshold"] == 1 and a["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    age = res["WebhookFanoutAgeAlarm"]["Properties"]
    assert age["MetricName"] == "IteratorAge"
    assert age["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": FANOUT}}]
    assert not any(
        isinstance(v, dict) and v.get("Ref") == "WebhookFanoutFunction" and v is not age["Dimensions"][0]["Value"]
        for v in walk(res["WebhookDeadLettersAlarm"])
    )
