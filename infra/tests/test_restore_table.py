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


def test_a_page_size_below_one_is_refused(ddb):
    source, target = table(ddb, POINT), table(ddb, NOW)
    with pytest.raises(ValueError):
        restore_table.restore(ddb, source, target, page_size=0, log=lambda _: None)


def test_small_pages_give_the_same_result_as_one_large_page(ddb):
    """Pages of 7 items: the scan, the prune's key look-ups and the writes all cross page and
    batch boundaries (60 carol events, 25-item writes, 100-key reads)."""
    source, target = table(ddb, POINT), table(ddb, NOW)
    assert restore_table.restore(ddb, source, target, prune=True, page_size=7, log=lambda _: None) == (len(POINT), 2)
    assert contents(ddb, target) == contents(ddb, source)


# ---- Bounded memory: a synthetic table far larger than a page, through a fake client --------


class Item(dict):
    """An item the fake client hands out, counted while alive (CPython frees it as soon as the
    last reference goes, so the count is what the tool holds at that moment)."""

    alive = 0
    most = 0

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        Item.alive += 1
        Item.most = max(Item.most, Item.alive)

    def __del__(self):
        Item.alive -= 1


class Paginator:
    def __init__(self, client, op):
        self.client, self.op = client, op

    def paginate(self, TableName, PaginationConfig, ProjectionExpression=None, **_):
        size = PaginationConfig["PageSize"]
        n = self.client.sizes[TableName]
        for start in range(0, n, size):
            self.client.pages += 1
            yield {"Items": [self.client.item(TableName, i, ProjectionExpression) for i in range(start, min(n, start + size))]}


class FakeDynamo:
    """A source table of `n` items (`USER#i`) and a live table of `n + extra` (the extra ones
    written after the restore point); items are made when a page is read, never stored."""

    def __init__(self, n, extra):
        self.sizes = {"restored": n, "live": n + extra}
        self.n = n
        self.put, self.deleted, self.pages = set(), set(), 0

    def item(self, table, i, projection):
        attrs = {"pk": {"S": f"USER#{i}"}, "sk": {"S": "PROFILE"}}
        if projection is None:
            attrs["userName"] = {"S": "x" * 200}
        return Item(attrs)

    def describe_table(self, TableName):
        assert TableName in self.sizes
        return {}

    def get_paginator(self, op):
        assert op == "scan"
        return Paginator(self, op)

    def batch_get_item(self, RequestItems):
        ((table, req),) = RequestItems.items()
        assert len(req["Keys"]) <= 100
        present = [k for k in req["Keys"] if int(k["pk"]["S"][5:]) < self.sizes[table]]
        return {"Responses": {table: [Item(k) for k in present]}}

    def batch_write_item(self, RequestItems):
        ((table, reqs),) = RequestItems.items()
        assert table == "live" and len(reqs) <= 25
        for r in reqs:
            if "PutRequest" in r:
                self.put.add(r["PutRequest"]["Item"]["pk"]["S"])
            else:
                self.deleted.add(r["DeleteRequest"]["Key"]["pk"]["S"])
        return {}


def test_the_copy_holds_at_most_two_pages_whatever_the_table_size():
    """20,000 items in pages of 100: every item is put and every later one deleted, while no
    more than two pages' items (the one being written, the one being read) are ever alive. The
    tool that held the whole table in a list peaked at the table's size."""
    Item.alive = Item.most = 0
    fake = FakeDynamo(n=20_000, extra=300)
    put, deleted = restore_table.restore(fake, "restored", "live", prune=True, page_size=100, log=lambda _: None)
    assert (put, deleted) == (20_000, 300)
    assert len(fake.put) == 20_000 and fake.deleted == {f"USER#{i}" for i in range(20_000, 20_300)}
    assert fake.pages == 200 + 203
    assert Item.most <= 2 * 100 + 100, Item.most  # two pages and one BatchGetItem answer
    assert Item.alive == 0
