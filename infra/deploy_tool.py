#!/usr/bin/env python3
"""The parts of infra/deploy.sh that read JSON (docs/operations.md §7):

    deploy_tool.py settings --stack-json FILE [--samconfig FILE] [--overrides 'K=V ...']...
        prints `Environment<TAB>WebAclArn`: each from --parameter-overrides, else samconfig.toml's
        parameter_overrides, else the deployed stack's parameters, else the template's default
        (production, empty). With --keys K1,K2,...: those parameters' values instead, one a line
        (BackupCopyVaultArn, SecretReplicaRegion: empty; BackupVaultLockChangeableForDays: 0).
    deploy_tool.py review --stack NAME --region R --change-set ARN [--policy FILE]
                          [--allow-replacement]
        prints the change set (replacements and removals first), and exits 3 when it would
        replace or delete a resource the stack policy protects, unless --allow-replacement.
    deploy_tool.py protected-types [--policy FILE]
        the resource types infra/stack-policy.json keeps from Update:Replace and Update:Delete.
    deploy_tool.py canary-account --stack NAME --region R --mailbox ADDRESS
        the synthetic sign-in's test account (docs/operations.md §8.2): a sign-in name that cannot
        be guessed (ADDRESS's mailbox with a random 96-bit tag, `local+canary-<24 hex>@domain`)
        and a random password, written into the stack's CanarySecret (put-secret-value, through a
        private file, never on a command line) and printed once for the sign-up; nothing else
        keeps them.

`review` reads the change set with the aws CLI (describe-change-set, every page)."""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import secrets
import shlex
import subprocess
import sys
import tempfile
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
POLICY = ROOT / "infra" / "stack-policy.json"
DEFAULTS = {"Environment": "production", "WebAclArn": ""}
# The template's defaults of the other parameters deploy.sh checks before a production deploy.
OTHER_DEFAULTS = {"BackupCopyVaultArn": "", "SecretReplicaRegion": "", "BackupVaultLockChangeableForDays": "0"}
# Exit status of `review` when a protected resource would be replaced or deleted.
REFUSED = 3


def parse_overrides(texts: list[str]) -> dict[str, str]:
    """`K=V K2="v 2"` strings (sam's --parameter-overrides form) as a dict; later wins."""
    out: dict[str, str] = {}
    for text in texts:
        for token in shlex.split(text):
            if "=" in token:
                key, value = token.split("=", 1)
                out[key] = value
    return out


def samconfig_overrides(path: pathlib.Path | None) -> dict[str, str]:
    if not path or not path.is_file():
        return {}
    with path.open("rb") as f:
        params = tomllib.load(f).get("default", {}).get("deploy", {}).get("parameters", {})
    value = params.get("parameter_overrides", "")
    return parse_overrides(value if isinstance(value, list) else [value])


def stack_parameters(path: pathlib.Path | None) -> dict[str, str]:
    if not path or not path.is_file() or not path.read_text().strip():
        return {}
    try:
        stack = json.loads(path.read_text())
    except json.JSONDecodeError:
        return {}
    return {p["ParameterKey"]: p.get("ParameterValue", "") for p in stack.get("Parameters") or []}


def settings(args) -> int:
    layers = [
        parse_overrides(args.overrides or []),
        samconfig_overrides(args.samconfig),
        stack_parameters(args.stack_json),
    ]
    if args.keys:
        for key in args.keys.split(","):
            print(next((layer[key] for layer in layers if key in layer), OTHER_DEFAULTS.get(key, "")))
        return 0
    values = []
    for key, default in DEFAULTS.items():
        values.append(next((layer[key] for layer in layers if key in layer), default))
    print("\t".join(values))
    return 0


def protected_types(policy: pathlib.Path) -> list[str]:
    """The ResourceType condition of the statements that deny Replace and Delete."""
    types: list[str] = []
    for s in json.loads(policy.read_text())["Statement"]:
        actions = s["Action"] if isinstance(s["Action"], list) else [s["Action"]]
        if s["Effect"] == "Deny" and {"Update:Replace", "Update:Delete"} <= set(actions):
            for test in s.get("Condition", {}).values():
                listed = test.get("ResourceType", [])
                types += listed if isinstance(listed, list) else [listed]
    return types


def describe(stack: str, region: str, change_set: str) -> dict:
    """The whole change set: its status and every page of its changes."""
    changes, token, first = [], None, None
    while True:
        cmd = ["aws", "cloudformation", "describe-change-set", "--stack-name", stack, "--region", region,
               "--change-set-name", change_set, "--output", "json"]
        if token:
            cmd += ["--next-token", token]
        page = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        first = first or page
        changes += page.get("Changes") or []
        token = page.get("NextToken")
        if not token:
            break
    return {**first, "Changes": changes}


def review(args) -> int:
    change_set = describe(args.stack, args.region, args.change_set)
    protected = set(protected_types(args.policy))
    bold, plain = ("\033[1m", "\033[0m") if sys.stdout.isatty() else ("", "")
    rows = []
    for c in change_set["Changes"]:
        r = c.get("ResourceChange") or {}
        action = r.get("Action", "?")
        replacement = r.get("Replacement", "")
        # Conditional: CloudFormation decides during the update; count it as a replacement.
        destructive = action == "Remove" or replacement in ("True", "Conditional")
        rows.append((not destructive, action, r.get("LogicalResourceId", "?"), r.get("ResourceType", "?"),
                     replacement, destructive and r.get("ResourceType") in protected))
    rows.sort(key=lambda row: (row[0], row[2]))
    print(f"change set {change_set.get('ChangeSetName', args.change_set)} of stack {args.stack}: "
          f"{len(rows)} change(s), status {change_set.get('Status', '?')}")
    if not rows:
        print("  (no resource changes)")
    print(f"  {'action':<8} {'replacement':<12} {'type':<40} logical id")
    for safe, action, logical, kind, replacement, guarded in rows:
        mark = "" if safe else bold
        note = "  <- PROTECTED by infra/stack-policy.json" if guarded else ""
        print(f"{mark}  {action:<8} {replacement or '-':<12} {kind:<40} {logical}{note}{plain if mark else ''}")
    refused = [row for row in rows if row[5]]
    if refused:
        names = ", ".join(f"{row[2]} ({row[3]}, {row[1]}{' replacement ' + row[4] if row[4] else ''})" for row in refused)
        if args.allow_replacement:
            print(f"{bold}--allow-replacement: these protected resources WILL be replaced or deleted: {names}{plain}")
        else:
            print(f"deploy: refused: this change set would replace or delete {names}; "
                  "the stack policy forbids it. If that is the intent (docs/operations.md section 8, "
                  "Rolling back / replacing a protected resource), rerun with --allow-replacement.",
                  file=sys.stderr)
            return REFUSED
    return 0


def canary_name(mailbox: str) -> str:
    """`local+canary-<24 random hex>@domain`: the team's mailbox still receives the account's mail
    (plus addressing), and the name is not guessable (96 random bits), so nobody can aim a
    lockout or a password guess at the account the on-call page watches."""
    local, at, domain = mailbox.partition("@")
    if not at or not local or "." not in domain or "+" in local:
        raise ValueError(f"--mailbox {mailbox!r}: an address without a +tag, e.g. ciam-canary@yourcompany.example")
    return f"{local}+canary-{secrets.token_hex(12)}@{domain}"


def canary_account(args) -> int:
    try:
        account = canary_name(args.mailbox)
    except ValueError as e:
        print(f"deploy_tool: {e}", file=sys.stderr)
        return 2
    password = secrets.token_urlsafe(24)
    arn = subprocess.run(
        ["aws", "cloudformation", "describe-stacks", "--stack-name", args.stack, "--region", args.region,
         "--query", "Stacks[0].Outputs[?OutputKey=='CanarySecretArn'].OutputValue", "--output", "text"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    if not arn or arn == "None":
        print(f"deploy_tool: the stack {args.stack} has no CanarySecretArn output", file=sys.stderr)
        return 1
    # The value goes through a file only this user can read, removed at once: never argv.
    fd, path = tempfile.mkstemp(prefix="ciam-canary-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump({"SecretId": arn, "SecretString": json.dumps({"account": account, "password": password})}, f)
        subprocess.run(
            ["aws", "secretsmanager", "put-secret-value", "--region", args.region, "--cli-input-json", f"file://{path}"],
            check=True, capture_output=True, text=True,
        )
    finally:
        os.unlink(path)
    print("The canary's test account is in its secret. Register it once through the web app's sign-up")
    print("(the code arrives in the mailbox), with exactly these, then forget them:")
    print(f"  sign-in name: {account}")
    print(f"  password:     {password}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("settings")
    p.add_argument("--stack-json", type=pathlib.Path)
    p.add_argument("--samconfig", type=pathlib.Path)
    p.add_argument("--overrides", action="append")
    p.add_argument("--keys")
    p = sub.add_parser("review")
    p.add_argument("--stack", required=True)
    p.add_argument("--region", required=True)
    p.add_argument("--change-set", required=True)
    p.add_argument("--policy", type=pathlib.Path, default=POLICY)
    p.add_argument("--allow-replacement", action="store_true")
    p = sub.add_parser("protected-types")
    p.add_argument("--policy", type=pathlib.Path, default=POLICY)
    p = sub.add_parser("canary-account")
    p.add_argument("--stack", required=True)
    p.add_argument("--region", required=True)
    p.add_argument("--mailbox", required=True)
    args = parser.parse_args(argv)
    if args.command == "canary-account":
        return canary_account(args)
    if args.command == "settings":
        return settings(args)
    if args.command == "review":
        return review(args)
    print("\n".join(protected_types(args.policy)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
