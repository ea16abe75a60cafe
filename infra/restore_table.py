#!/usr/bin/env python3
"""Copies items from a restored table back into the stack's live table (docs/operations.md §8.5,
"Restoring the table": a point-in-time restore or an AWS Backup recovery point, here or in the
copy Region).

The stack's table is one CloudFormation resource that every function and policy names, so the
restore never swaps tables: `restore-table-to-point-in-time` (or `start-restore-job`) makes a
side table, and this tool puts its items back into the live one, either some partitions
(`--pk USER#...`, the usual repair) or all of them. `--prune` also deletes, in the same scope,
the live items the restored table lacks (written after the restore point), making the scope
equal to the restore point.

It streams: one page of the source (Scan, or Query for a partition) is written before the next
is read, and `--prune` reads the live table's keys a page at a time and asks the source for just
those keys (BatchGetItem), so memory holds at most a page (`--page-size` items, at most 1 MB)
whatever the table's size.

    python infra/restore_table.py --source ciam-restore-0315 --target <TableName output>
                                  [--pk USER#abc --pk MAIL#a@example.com] [--prune]
                                  [--region R] [--endpoint-url URL] [--dry-run] [--page-size N]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable, Iterable, Iterator

KEY = ("pk", "sk")
BATCH = 25  # BatchWriteItem's limit
GET_BATCH = 100  # BatchGetItem's limit
PAGE = 500  # items a Scan or Query page holds at most (and 1 MB, DynamoDB's own cap)


def _pages(ddb, table: str, pks: list[str], keys_only: bool = False, page_size: int = PAGE) -> Iterator[list[dict]]:
    """The table's items a page at a time, or the given partitions' (Query, never a Scan when
    scoped). Only one page is alive at once: the caller is done with it before the next is read."""
    projection = {"ProjectionExpression": "pk, sk"} if keys_only else {}
    config = {"PaginationConfig": {"PageSize": page_size}}
    if not pks:
        pages = ddb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True, **projection, **config)
        for page in pages:
            yield page["Items"]
        return
    for pk in pks:
        pages = ddb.get_paginator("query").paginate(
            TableName=table,
            ConsistentRead=True,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": pk}},
            **projection,
            **config,
        )
        for page in pages:
            yield page["Items"]


def _backoff(delays: list[float]) -> None:
    time.sleep(delays[0])
    delays[0] = min(delays[0] * 2, 5)


def _write(ddb, table: str, requests: list[dict]) -> None:
    """BatchWriteItem, retrying what DynamoDB leaves unprocessed (throttling) with backoff."""
    for start in range(0, len(requests), BATCH):
        pending = {table: requests[start : start + BATCH]}
        delays = [0.05]
        while pending:
            pending = ddb.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
            if pending:
                _backoff(delays)


def _present(ddb, table: str, keys: list[dict]) -> set[tuple]:
    """Which of `keys` the table holds (BatchGetItem of the keys alone, retrying unprocessed)."""
    found = set()
    for start in range(0, len(keys), GET_BATCH):
        pending = {table: {"Keys": keys[start : start + GET_BATCH], "ProjectionExpression": "pk, sk", "ConsistentRead": True}}
        delays = [0.05]
        while pending:
            answer = ddb.batch_get_item(RequestItems=pending)
            found.update(_key(i) for i in answer.get("Responses", {}).get(table, []))
            pending = answer.get("UnprocessedKeys") or {}
            if pending:
                _backoff(delays)
    return found


def _key(item: dict) -> tuple:
    return tuple(item[k]["S"] for k in KEY)


def _key_of(item: dict) -> dict:
    return {k: item[k] for k in KEY}


def restore(
    ddb,
    source: str,
    target: str,
    pks: Iterable[str] = (),
    prune: bool = False,
    dry_run: bool = False,
    log: Callable[[str], None] = print,
    page_size: int = PAGE,
) -> tuple[int, int]:
    """Puts the source's items (in scope) into target; with prune deletes target's items in
    scope that source lacks. Returns (put, deleted). Streams: a page at a time."""
    if source == target:
        raise ValueError("source and target are the same table")
    if page_size < 1:
        raise ValueError("the page size must be at least 1")
    pks = list(pks)
    for name in (source, target):
        ddb.describe_table(TableName=name)  # fails early with ResourceNotFoundException
    scope = f"partitions {', '.join(pks)}" if pks else "the whole table"
    put = deleted = 0
    # Prune first: its scan of the live table then never reads back the items just put.
    if prune:
        for page in _pages(ddb, target, pks, keys_only=True, page_size=page_size):
            keys = [_key_of(i) for i in page]
            del page
            held = _present(ddb, source, keys)
            extra = [k for k in keys if _key(k) not in held]
            deleted += len(extra)
            if not dry_run:
                _write(ddb, target, [{"DeleteRequest": {"Key": k}} for k in extra])
    for page in _pages(ddb, source, pks, page_size=page_size):
        put += len(page)
        if not dry_run:
            _write(ddb, target, [{"PutRequest": {"Item": i}} for i in page])
    verb = "would put" if dry_run else "put"
    log(f"{verb} {put} items from {source} into {target} ({scope})")
    if prune:
        log(f"{'would delete' if dry_run else 'deleted'} {deleted} items of {target} written after the restore point")
    return put, deleted


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Copy items from a restored table into the live table.")
    p.add_argument("--source", required=True, help="the restored side table (PITR or AWS Backup)")
    p.add_argument("--target", required=True, help="the stack's live table (TableName output)")
    p.add_argument("--pk", action="append", default=[], help="restore only this partition (repeatable)")
    p.add_argument("--prune", action="store_true", help="also delete items in scope the restored table lacks")
    p.add_argument("--region", default=None)
    p.add_argument("--endpoint-url", default=None, help="a DynamoDB-compatible endpoint (tests)")
    p.add_argument("--dry-run", action="store_true", help="count what would change; write nothing")
    p.add_argument("--page-size", type=int, default=PAGE, help=f"items read per page (default {PAGE})")
    args = p.parse_args(argv)

    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    ddb = boto3.client("dynamodb", region_name=args.region, endpoint_url=args.endpoint_url)
    try:
        restore(ddb, args.source, args.target, args.pk, args.prune, args.dry_run, page_size=args.page_size)
    except (BotoCoreError, ClientError, ValueError) as e:
        print(f"restore_table: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
