#!/usr/bin/env python3
"""Copies items from a table restored by point-in-time recovery back into the stack's live table
(docs/operations.md §8, "Restore from point-in-time recovery").

The stack's table is one CloudFormation resource that every function and policy names, so the
restore never swaps tables: `restore-table-to-point-in-time` makes a side table, and this tool
puts its items back into the live one, either some partitions (`--pk USER#...`, the usual repair)
or all of them. `--prune` also deletes, in the same scope, the live items the restored table
lacks (written after the restore point), making the scope equal to the restore point.

    python infra/restore_table.py --source ciam-restore-0315 --target <TableName output>
                                  [--pk USER#abc --pk MAIL#a@example.com] [--prune]
                                  [--region R] [--endpoint-url URL] [--dry-run]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable, Iterable, Iterator

KEY = ("pk", "sk")
BATCH = 25  # BatchWriteItem's limit


def _items(ddb, table: str, pks: list[str], keys_only: bool = False) -> Iterator[dict]:
    """Every item of the table, or of the given partitions (Query, never a Scan when scoped)."""
    projection = {"ProjectionExpression": "pk, sk"} if keys_only else {}
    if not pks:
        pages = ddb.get_paginator("scan").paginate(TableName=table, ConsistentRead=True, **projection)
        for page in pages:
            yield from page["Items"]
        return
    for pk in pks:
        pages = ddb.get_paginator("query").paginate(
            TableName=table,
            ConsistentRead=True,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": pk}},
            **projection,
        )
        for page in pages:
            yield from page["Items"]


def _write(ddb, table: str, requests: list[dict]) -> None:
    """BatchWriteItem, retrying what DynamoDB leaves unprocessed (throttling) with backoff."""
    for start in range(0, len(requests), BATCH):
        pending = {table: requests[start : start + BATCH]}
        delay = 0.05
        while pending:
            pending = ddb.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
            if pending:
                time.sleep(delay)
                delay = min(delay * 2, 5)


def _key(item: dict) -> tuple:
    return tuple(item[k]["S"] for k in KEY)


def restore(
    ddb,
    source: str,
    target: str,
    pks: Iterable[str] = (),
    prune: bool = False,
    dry_run: bool = False,
    log: Callable[[str], None] = print,
) -> tuple[int, int]:
    """Puts the source's items (in scope) into target; with prune deletes target's items in
    scope that source lacks. Returns (put, deleted)."""
    if source == target:
        raise ValueError("source and target are the same table")
    pks = list(pks)
    for name in (source, target):
        ddb.describe_table(TableName=name)  # fails early with ResourceNotFoundException
    restored = list(_items(ddb, source, pks))
    wanted = {_key(i) for i in restored}
    extra = []
    if prune:
        extra = [i for i in _items(ddb, target, pks, keys_only=True) if _key(i) not in wanted]
    scope = f"partitions {', '.join(pks)}" if pks else "the whole table"
    verb = "would put" if dry_run else "put"
    log(f"{verb} {len(restored)} items from {source} into {target} ({scope})")
    if prune:
        log(f"{'would delete' if dry_run else 'delete'} {len(extra)} items of {target} written after the restore point")
    if dry_run:
        return len(restored), len(extra)
    _write(ddb, target, [{"PutRequest": {"Item": i}} for i in restored])
    _write(ddb, target, [{"DeleteRequest": {"Key": {k: i[k] for k in KEY}}} for i in extra])
    return len(restored), len(extra)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Copy items from a PITR-restored table into the live table.")
    p.add_argument("--source", required=True, help="the table restore-table-to-point-in-time made")
    p.add_argument("--target", required=True, help="the stack's live table (TableName output)")
    p.add_argument("--pk", action="append", default=[], help="restore only this partition (repeatable)")
    p.add_argument("--prune", action="store_true", help="also delete items in scope the restored table lacks")
    p.add_argument("--region", default=None)
    p.add_argument("--endpoint-url", default=None, help="a DynamoDB-compatible endpoint (tests)")
    p.add_argument("--dry-run", action="store_true", help="count what would change; write nothing")
    args = p.parse_args(argv)

    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    ddb = boto3.client("dynamodb", region_name=args.region, endpoint_url=args.endpoint_url)
    try:
        restore(ddb, args.source, args.target, args.pk, args.prune, args.dry_run)
    except (BotoCoreError, ClientError, ValueError) as e:
        print(f"restore_table: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
