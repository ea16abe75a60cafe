"""infra/restore_table.py against moto_server's DynamoDB: a restored side table copied back into
the live one, partition by partition or whole, with and without pruning later writes."""

import pathlib
import sys
import uuid

import boto3
import pytest

from test_upload_web import CREDENTIALS, endpoint  # noqa: F401  (the moto_server fixture)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "infra"))
import restore_table  # noqa: E402


@pytest.fixture
def ddb(endpoint):  # noqa: F811
    return boto3.client("dynamodb", endpoint_url=endpoint, **CREDENTIALS)


def table(ddb, items):
    name = f"ciam-{uuid.uuid4().hex[:10]}"
    ddb.create_table(
        TableName=name,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    )
    for pk, sk, name_value in items:
        ddb.put_item(TableName=name, Item={"pk": {"S": pk}, "sk": {"S": sk}, "userName": {"S": name_value}})
    return name


def contents(ddb, name):
    items = ddb.scan(TableName=name)["Items"]
    return sorted((i["pk"]["S"], i["sk"]["S"], i["userName"]["S"]) for i in items)


# What the table held at the restore point, and what it holds now: alice was damaged, bob
# registered after the restore point, carol is untouched, and a mass of rows checks batching.
POINT = [("USER#a", "PROFILE", "alice"), ("USER#a", "SESSION#1", "alice"), ("MAIL#a@x.cn", "UNIQUE", "alice")]
POINT += [("USER#c", f"EVENT#{n:03}", "carol") for n in range(60)]
NOW = [("USER#a", "PROFILE", "DAMAGED"), ("USER#b", "PROFILE", "bob"), ("USER#a", "SESSION#2", "alice")]
NOW += [("USER#c", f"EVENT#{n:03}", "carol") for n in range(60)]


def test_restoring_one_partition_leaves_every_other_partition_as_it_is(ddb):
    source, target = table(ddb, POINT), table(ddb, NOW)
    put, deleted = restore_table.restore(ddb, source, target, pks=["USER#a"], log=lambda _: None)
    assert (put, deleted) == (2, 0)
    now = contents(ddb, target)
    assert ("USER#a", "PROFILE", "alice") in now
    assert ("USER#a", "SESSION#2", "alice") in now, "kept without --prune"
    assert ("USER#b", "PROFILE", "bob") in now
    assert ("MAIL#a@x.cn", "UNIQUE", "alice") not in now, "another partition"


def test_pruning_the_whole_table_makes_it_equal_to_the_restore_point(ddb):
    source, target = table(ddb, POINT), table(ddb, NOW)
    put, deleted = restore_table.restore(ddb, source, target, prune=True, log=lambda _: None)
    assert (put, deleted) == (len(POINT), 2)
    assert contents(ddb, target) == contents(ddb, source)


def test_a_dry_run_writes_nothing(ddb):
    source, target = table(ddb, POINT), table(ddb, NOW)
    before = contents(ddb, target)
    assert restore_table.restore(ddb, source, target, prune=True, dry_run=True, log=lambda _: None) == (len(POINT), 2)
    assert contents(ddb, target) == before


def test_the_same_table_as_source_and_target_is_refused(ddb):
    name = table(ddb, POINT)
    with pytest.raises(ValueError):
        restore_table.restore(ddb, name, name, log=lambda _: None)


def test_a_missing_target_is_refused_before_anything_is_read(ddb):
    source = table(ddb, POINT)
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        restore_table.restore(ddb, source, "no-such-table", log=lambda _: None)
