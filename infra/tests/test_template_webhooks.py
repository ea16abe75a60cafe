"""The webhook pipeline on AWS (issues 23 and 30, docs/events-design.md §2 and §8), after the SAM
transform: the table's stream filtered to inserted EVT# items (and the audit tripwire's records,
and password sign-ins' sessions for the console's numbers), the fan-out function, two fair
delivery queues (events; logout notices) and their dead letters, the delivery function, each function with a role of its own that allows what
it needs and nothing more (the delivery function reads the endpoints, with their sealed secrets,
and the app items, writes the delivery log, and signs logout tokens with their own KMS key;
it holds no other key and reads no user item)."""

import json

from template_facts import aws_managed_arn, walk

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


def mappings_of(transformed, function):
    return [
        r["Properties"] for r in transformed["Resources"].values()
        if r["Type"] == "AWS::Lambda::EventSourceMapping"
        and r["Properties"]["FunctionName"] == {"Ref": function}
    ]


def mapping_of(transformed, function, kind):
    maps = mappings_of(transformed, function)
    assert len(maps) == 1, maps
    return maps[0]


def test_the_table_streams_new_images_and_only_inserted_events_wake_the_fan_out(template, transformed):
    spec = template["Resources"]["Table"]["Properties"]["StreamSpecification"]
    assert spec == {"StreamViewType": "NEW_IMAGE"}
    m = mapping_of(transformed, FANOUT, "DynamoDB")
    assert m["EventSourceArn"] == {"Fn::GetAtt": ["Table", "StreamArn"]}
    assert m["StartingPosition"] == "TRIM_HORIZON"
    assert m["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert m["BisectBatchOnFunctionError"] is True
    # The second filter is the audit log's tripwire (issue 30, test_template_audit.py), the third
    # the console's numbers (below): nothing else of the table wakes the fan-out.
    f, _audit, _tally = m["FilterCriteria"]["Filters"]
    pattern = json.loads(f["Pattern"])
    # Committed events, and the deliveries the registry's replay writes (partition WHQ).
    assert pattern == {"eventName": ["INSERT"], "dynamodb": {"Keys": {"pk": {"S": [{"prefix": "EVT#"}, "WHQ"]}}}}
    # A batch that keeps failing is set aside in a standard queue (a stream's on-failure
    # destination cannot be FIFO), never dropped.
    assert m["DestinationConfig"]["OnFailure"]["Destination"] == {"Fn::GetAtt": ["WebhookFanoutFailures", "Arn"]}
    assert m["MaximumRecordAgeInSeconds"] == 86400


QUEUES = ["WebhookQueue", "WebhookNoticeQueue"]


def test_deliveries_go_through_two_fair_queues_kept_longer_than_the_retries(transformed):
    res = transformed["Resources"]
    timeout = res[DELIVERY]["Properties"]["Timeout"]
    for name in QUEUES:
        q = res[name]["Properties"]
        # Fair queues are standard queues (the senders set MessageGroupId to the app): no FIFO
        # group can hold an app's or a user's later deliveries behind a failing one.
        assert "FifoQueue" not in q and "FifoThroughputLimit" not in q
        assert q["SqsManagedSseEnabled"] is True
        # Retries run 24 hours: the messages live 4 days, so nothing expires unseen.
        assert q["MessageRetentionPeriod"] == 4 * 86400
        assert q["RedrivePolicy"] == {"deadLetterTargetArn": {"Fn::GetAtt": ["WebhookDeadLetters", "Arn"]}, "maxReceiveCount": 5}
        assert q["VisibilityTimeout"] >= 6 * timeout
    dlq = res["WebhookDeadLetters"]["Properties"]
    assert "FifoQueue" not in dlq and dlq["MessageRetentionPeriod"] == 14 * 86400
    # One mapping per queue: logout notices never wait behind events.
    maps = {json.dumps(m["EventSourceArn"]): m for m in mappings_of(transformed, DELIVERY)}
    assert set(maps) == {json.dumps({"Fn::GetAtt": [q, "Arn"]}) for q in QUEUES}
    for m in maps.values():
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
        assert env["CIAM_WEBHOOK_NOTICE_QUEUE_URL"] == {"Ref": "WebhookNoticeQueue"}
        fn = transformed["Resources"][name]["Properties"]
        assert fn["Role"] == {"Fn::GetAtt": [role, "Arn"]}
        r = transformed["Resources"][role]["Properties"]
        # Only the basic execution policy every function has: SAM's defaults for stream and queue
        # sources allow every stream and every queue of the account.
        assert [aws_managed_arn(a) for a in r["ManagedPolicyArns"]] == [BASIC]
        assert r["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "lambda.amazonaws.com"}


def test_password_sign_ins_sessions_reach_the_fan_out_to_be_counted_and_nothing_more(transformed):
    """Issue 30 item 9: a password sign-in's session carries its count (`tm`, `tn`) and the
    fan-out counts the batch (functions/lambdas/src/tally.rs): the mapping's third filter passes
    inserted sessions with a `tm` only (a session's refresh is a MODIFY; other sessions have no
    `tm`), and the role's one new right is UpdateItem on the user items (`activeDay`) and the
    counters' shards."""
    m = mapping_of(transformed, FANOUT, "DynamoDB")
    patterns = [json.loads(f["Pattern"]) for f in m["FilterCriteria"]["Filters"]]
    assert len(patterns) == 3
    # Lambda's `exists` matches a leaf only: the attribute's type is part of the pattern.
    assert patterns[2] == {
        "eventName": ["INSERT"],
        "dynamodb": {"Keys": {"sk": {"S": [{"prefix": "SESSION#"}]}}, "NewImage": {"tm": {"S": [{"exists": True}]}}},
    }
    acts = by_action(transformed, "WebhookFanoutFunctionRole")
    [update] = acts["dynamodb:UpdateItem"]
    assert actions(update) == {"dynamodb:UpdateItem"}
    assert update["Resource"] == {"Fn::GetAtt": ["Table", "Arn"]}
    assert update["Condition"] == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["USER#*", "STATS#*"]}}
    # The tally's read (the user item's `activeDay`) is among the reads it already had; it reads
    # no counter (the shards take `ADD`s), puts nothing and deletes nothing of either partition.
    [get] = acts["dynamodb:GetItem"]
    assert "USER#*" in leading_keys(get) and "STATS#*" not in leading_keys(get)
    assert "dynamodb:PutItem" not in acts
    for d in acts["dynamodb:DeleteItem"]:
        keys = [k for v in d["Condition"].values() for k in v["dynamodb:LeadingKeys"]]
        assert not {"USER#*", "STATS#*"} & set(keys), keys
    # Audit entries stay out of its reach as of every role's (test_template_audit.py).
    denies = [s for s in statements(transformed, "WebhookFanoutFunctionRole") if s["Effect"] == "Deny"]
    assert any("dynamodb:UpdateItem" in actions(s) for s in denies)


def test_the_fan_out_reads_consents_and_endpoints_and_sends_to_the_queue_only(transformed):
    acts = by_action(transformed, "WebhookFanoutFunctionRole")
    assert set(acts) == {
        "dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams",
        "dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query", "dynamodb:DeleteItem",
        "dynamodb:UpdateItem", "sqs:SendMessage",
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
        # The consents, the endpoints, the ended sessions' apps, the app items (exactly `APPS`),
        # and the events (a coalesced user.updated is read again once its window ends).
        assert sorted(keys) == ["APPS", "EVT#*", "SESSAPP#*", "USER#*", "WHE#*"], keys
    sends = set()
    for st in acts["sqs:SendMessage"]:
        r = st["Resource"]
        sends |= {json.dumps(x) for x in (r if isinstance(r, list) else [r])}
    assert sends == {json.dumps({"Fn::GetAtt": [q, "Arn"]}) for q in QUEUES + ["WebhookFanoutFailures"]}
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
    both = [{"Fn::GetAtt": [q, "Arn"]} for q in QUEUES]
    assert [s["Resource"] for s in acts["sqs:ReceiveMessage"]] == [both]
    # A failed attempt is deleted and sent again, delayed, to its own queue: nothing is held in
    # flight, so no ChangeMessageVisibility.
    assert [s["Resource"] for s in acts["sqs:SendMessage"]] == [both]
    assert "sqs:ChangeMessageVisibility" not in acts
    assert "dynamodb:Query" not in acts and "dynamodb:DeleteItem" not in acts
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


def test_the_pipeline_pages_on_each_dead_letter_on_queue_age_on_a_failing_endpoint_and_on_lag(transformed):
    res = transformed["Resources"]
    # A dead letter pages on its arrival (the depth's rise), so a second one pages again while
    # the first is still there; the fan-out's failures queue on its depth.
    dl = res["WebhookDeadLettersAlarm"]["Properties"]
    depth, arrived = dl["Metrics"]
    assert depth["MetricStat"]["Metric"] == {
        "Namespace": "AWS/SQS", "MetricName": "ApproximateNumberOfMessagesVisible",
        "Dimensions": [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["WebhookDeadLetters", "QueueName"]}}],
    }
    assert depth["MetricStat"]["Period"] == 60 and depth["ReturnData"] is False
    assert arrived["Expression"] == "DIFF(FILL(depth, 0))" and arrived["ReturnData"] is True
    assert dl["Threshold"] == 0 and dl["ComparisonOperator"] == "GreaterThanThreshold"
    assert dl["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    a = res["WebhookFanoutFailuresAlarm"]["Properties"]
    assert a["Namespace"] == "AWS/SQS" and a["MetricName"] == "ApproximateNumberOfMessagesVisible"
    assert a["Dimensions"] == [{"Name": "QueueName", "Value": {"Fn::GetAtt": ["WebhookFanoutFailures", "QueueName"]}}]
    assert a["Threshold"] == 1 and a["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    # The oldest message of each delivery queue: above the longest delay a retry waits (900 s).
    for name, queue in [("WebhookQueueAgeAlarm", "WebhookQueue"), ("WebhookNoticeQueueAgeAlarm", "WebhookNoticeQueue")]:
        a = res[name]["Properties"]
        assert a["MetricName"] == "ApproximateAgeOfOldestMessage"
        assert a["Dimensions"] == [{"Name": "QueueName", "Value": {"Fn::GetAtt": [queue, "QueueName"]}}]
        assert 900 < a["Threshold"] <= 1800 and a["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    # An endpoint failing every delivery: the delivery function's own metric (no dimension, so one
    # alarm watches every endpoint; per app and endpoint in Failed).
    f = res["WebhookEndpointFailingAlarm"]["Properties"]
    assert (f["Namespace"], f["MetricName"], f["Statistic"]) == ("Ciam/Webhooks", "FailingSeconds", "Maximum")
    assert "Dimensions" not in f and f["AlarmActions"] == [{"Ref": "AlarmTopic"}]
    assert f["Threshold"] < 3 * 86400
    age = res["WebhookFanoutAgeAlarm"]["Properties"]
    assert age["MetricName"] == "IteratorAge"
    assert age["Dimensions"] == [{"Name": "FunctionName", "Value": {"Ref": FANOUT}}]
