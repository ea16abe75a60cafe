#!/usr/bin/env python3
"""The parts of infra/deploy.sh that read JSON (docs/operations.md §7):

    deploy_tool.py settings --stack-json FILE [--samconfig FILE] [--overrides 'K=V ...']...
        prints `Environment<TAB>WebAclArn`: each from --parameter-overrides, else samconfig.toml's
        parameter_overrides, else the deployed stack's parameters, else the template's default
        (production, empty); samconfig.toml's [ENV.deploy.parameters] with --config-env ENV
        (default: default). With --keys K1,K2,...: those parameters' values instead, one a line
        (BackupCopyVaultArn, SecretReplicaRegion: empty; BackupVaultLockChangeableForDays: 0).
    deploy_tool.py cell --cell cn --region R --stack-json FILE [--samconfig FILE]
                        [--config-env ENV] [--overrides 'K=V ...']... [--template FILE]
        the cn cell's checks before anything is built (docs/operations.md §8.9): a China
        Region; no parameter the cn stack lacks (WebAclArn, CertificateArn: named with what
        replaces them); the ICP-filed DomainName
        and IamCertificateId always, and in production ClientLimits, the backup copy in the
        other China Region, the secret replica there, a compliance lock, and the provider
        secrets (MailRelaySecretName, SmsProviderSecretName) existing where the caller may read
        them. Prints `Environment` and what it checked; exits 4 with the refusals.
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
from typing import Callable

ROOT = pathlib.Path(__file__).resolve().parents[1]
POLICY = ROOT / "infra" / "stack-policy.json"
DEFAULTS = {"Environment": "production", "WebAclArn": ""}
# The template's defaults of the other parameters deploy.sh checks before a production deploy.
OTHER_DEFAULTS = {"BackupCopyVaultArn": "", "SecretReplicaRegion": "", "BackupVaultLockChangeableForDays": "0"}
# Exit status of `review` when a protected resource would be replaced or deleted.
REFUSED = 3
# Exit status of `cell` when the cell cannot have what the deploy asks for.
CELL_REFUSED = 4
# The cells and their Regions: aws-cn's two, and every other Region for global.
CHINA_REGIONS = ("cn-north-1", "cn-northwest-1")
# Global-only parameters an operator may carry over, and what the cn cell has instead.
NOT_IN_CN = {
    "WebAclArn": "no CLOUDFRONT web ACL exists in China (WAF there is regional only); the cn stack limits "
                 "each client itself: ClientLimits (docs/multi-region.md section 13)",
    "CertificateArn": "CloudFront in China takes no ACM certificate: upload it to IAM "
                      "(aws iam upload-server-certificate --path /cloudfront/...) and pass IamCertificateId",
}


def parse_overrides(texts: list[str]) -> dict[str, str]:
    """`K=V K2="v 2"` strings (sam's --parameter-overrides form) as a dict; later wins."""
    out: dict[str, str] = {}
    for text in texts:
        for token in shlex.split(text):
            if "=" in token:
                key, value = token.split("=", 1)
                out[key] = value
    return out


def samconfig_overrides(path: pathlib.Path | None, env: str = "default") -> dict[str, str]:
    if not path or not path.is_file():
        return {}
    with path.open("rb") as f:
        params = tomllib.load(f).get(env, {}).get("deploy", {}).get("parameters", {})
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
        samconfig_overrides(args.samconfig, args.config_env),
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


def template_parameters(path: pathlib.Path) -> dict[str, str]:
    """The Parameters of a generated stack and their defaults (`Default:`; "" without one), read
    from its text so that no YAML library is needed beside boto3."""
    params: dict[str, str] = {}
    inside, name = False, None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            inside = line.rstrip() == "Parameters:"
            continue
        if not inside:
            continue
        if line.startswith("  ") and not line.startswith("   ") and line.rstrip().endswith(":"):
            name = line.strip()[:-1]
            params[name] = ""
        elif name and line.strip().startswith("Default:"):
            params[name] = line.split(":", 1)[1].strip().strip('"').strip("'")
    return params


def aws_read(*args: str) -> tuple[str, str]:
    """A read-only aws CLI call: ("ok", output), ("missing", error) when the thing does not
    exist, or ("unknown", error) when the caller may not look (or the CLI failed)."""
    done = subprocess.run(["aws", *args], capture_output=True, text=True)
    if done.returncode == 0:
        return "ok", done.stdout.strip()
    err = done.stderr.strip()
    if "NotFound" in err or "NoSuchEntity" in err:
        return "missing", err
    return "unknown", err or f"exit {done.returncode}"


class Findings:
    """What `cell` found: refusals (the deploy stops) and notes (said, then it goes on)."""

    def __init__(self) -> None:
        self.refusals: list[str] = []
        self.notes: list[str] = []


def cell(args) -> int:
    """The cn cell's checks (the module doc); the global cell's Region is deploy.sh's own check."""
    found = Findings()
    if args.region not in CHINA_REGIONS:
        found.refusals.append(f"--region {args.region or '<none>'}: the cn cell (infra/cn.yaml) deploys in "
                              f"{' or '.join(CHINA_REGIONS)} only, with the aws-cn account's credentials")
        return _finish(found, "")
    given = parse_overrides(args.overrides or [])
    saved = samconfig_overrides(args.samconfig, args.config_env)
    deployed = stack_parameters(args.stack_json)
    defaults = template_parameters(args.template)

    def value(key: str) -> str:
        return next((layer[key] for layer in (given, saved, deployed) if key in layer), defaults.get(key, ""))

    for key in sorted(set(given) | set(saved)):
        if key not in defaults:
            why = NOT_IN_CN.get(key, "the cn stack (infra/cn.yaml) has no such parameter")
            where = "--parameter-overrides" if key in given else f"samconfig.toml [{args.config_env}.deploy.parameters]"
            found.refusals.append(f"{key} ({where}): {why}")
    if "WebAclArn" in deployed or "CertificateArn" in deployed:
        found.refusals.append(f"the deployed stack {args.stack} is a global cell's (it has WebAclArn/CertificateArn): "
                              "name the cn cell's own stack with --stack-name")
    environment = value("Environment") or "production"
    if environment not in ("production", "test"):
        found.refusals.append(f"Environment={environment}: production or test")
    production = environment == "production"
    if value("ConsoleHostName"):
        found.refusals.append("ConsoleHostName: empty in the cn cell (its door in the global cell is the web ACL, which "
                              "China cannot put on CloudFront); the console is served under DomainName's /{lang}/admin")
    if not value("DomainName"):
        found.refusals.append("DomainName is empty: CloudFront in China serves only on a host name with an ICP recordal "
                              "(login.example.cn); pass --parameter-overrides 'DomainName=...'")
    _check_certificate(found, args.region, value("IamCertificateId"))
    for key in ("MailRelaySecretName", "SmsProviderSecretName"):
        _check_secret(found, args.region, key, value(key), production)
    if production:
        _check_production(found, value)
    _check_other_region(found, args.region, value("SecretReplicaRegion"), value("BackupCopyVaultArn"))
    found.notes.insert(0, f"Environment={environment} DomainName={value('DomainName') or '<empty>'} "
                          f"IamCertificateId={value('IamCertificateId') or '<empty>'} ClientLimits={value('ClientLimits') or '<empty>'}")
    return _finish(found, environment)


def _check_certificate(found: Findings, region: str, cert: str) -> None:
    """CloudFront uses IAM server certificates under the path /cloudfront/ only."""
    if not cert:
        found.refusals.append("IamCertificateId is empty: CloudFront in China takes its certificate from IAM (aws iam "
                              "upload-server-certificate --path /cloudfront/ciam/ ...; the answer's ServerCertificateId)")
        return
    status, out = aws_read("iam", "list-server-certificates", "--path-prefix", "/cloudfront/", "--region", region,
                           "--query", f"ServerCertificateMetadataList[?ServerCertificateId=='{cert}'].[ServerCertificateName,Expiration]",
                           "--output", "text")
    if status == "ok" and out and out != "None":
        found.notes.append(f"IAM server certificate {cert}: {' '.join(out.split())}")
    elif status == "ok":
        found.refusals.append(f"IamCertificateId={cert}: no IAM server certificate with that id under the path /cloudfront/ "
                              "(CloudFront uses only those): aws iam list-server-certificates --path-prefix /cloudfront/")
    else:
        found.notes.append(f"IamCertificateId={cert}: not checked (cannot list IAM server certificates: {out.splitlines()[-1]})")


def _check_secret(found: Findings, region: str, key: str, name: str, production: bool) -> None:
    """A provider secret the functions read at their start: missing, production does not deploy."""
    if not name:
        found.refusals.append(f"{key} is empty: the name of the Secrets Manager secret the cell's functions read")
        return
    status, out = aws_read("secretsmanager", "describe-secret", "--secret-id", name, "--region", region,
                           "--query", "Name", "--output", "text")
    if status == "ok":
        found.notes.append(f"{key}={name}: exists")
    elif status == "missing":
        message = f"{key}={name}: no such secret in {region}: create it first (docs/operations.md section 8.9)"
        if production:
            found.refusals.append(message)
        else:
            found.notes.append(f"warning: {message}")
    else:
        found.notes.append(f"{key}={name}: not checked (cannot read it: {out.splitlines()[-1]})")


def _check_production(found: Findings, value: Callable[[str], str]) -> None:
    """What the template's production rules refuse, before a build."""
    if value("ClientLimits") in ("", "none"):
        found.refusals.append("ClientLimits=none: a production cn stack limits each client (no web ACL can in China; "
                              "docs/multi-region.md section 13)")
    if not value("BackupCopyVaultArn"):
        found.refusals.append("BackupCopyVaultArn is empty: deploy infra/backup-vault.yaml in the other China Region "
                              "and pass its VaultArn output")
    if not value("SecretReplicaRegion"):
        found.refusals.append("SecretReplicaRegion is empty: name the other China Region for the secrets' replica")
    if (value("BackupVaultLockChangeableForDays") or "0") == "0":
        found.refusals.append("BackupVaultLockChangeableForDays is 0 (governance mode): set 3 or more for a compliance-mode lock")


def _check_other_region(found: Findings, region: str, replica: str, copy: str) -> None:
    """The replica and the copy belong in the other China Region (the template's AllowedValues
    admit both, and its Rules cannot compare with the stack's own Region)."""
    other = next(r for r in CHINA_REGIONS if r != region)
    if replica == region:
        found.refusals.append(f"SecretReplicaRegion={replica} is this stack's own Region: the replica goes to {other}")
    if copy and f":{region}:" in copy:
        found.refusals.append(f"BackupCopyVaultArn is in {region}, this stack's own Region: the copy goes to a vault in {other}")


def _finish(found: Findings, environment: str) -> int:
    print(environment)
    for note in found.notes:
        print(note)
    if found.refusals:
        print("deploy: refused: this cell cannot deploy as asked:\n" + "\n".join(f"  {r}" for r in found.refusals),
              file=sys.stderr)
        return CELL_REFUSED
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
    p.add_argument("--config-env", default="default")
    p = sub.add_parser("cell")
    p.add_argument("--cell", choices=("cn",), required=True)
    p.add_argument("--region", default="")
    p.add_argument("--stack", default="")
    p.add_argument("--stack-json", type=pathlib.Path)
    p.add_argument("--samconfig", type=pathlib.Path)
    p.add_argument("--config-env", default="default")
    p.add_argument("--overrides", action="append")
    p.add_argument("--template", type=pathlib.Path, default=ROOT / "infra" / "cn.yaml")
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
    if args.command == "cell":
        return cell(args)
    if args.command == "review":
        return review(args)
    print("\n".join(protected_types(args.policy)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
