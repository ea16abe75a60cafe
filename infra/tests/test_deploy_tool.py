"""infra/deploy_tool.py, the JSON parts of deploy.sh: where Environment and WebAclArn come from,
and the change set review (every page read, destructive changes first, a protected one
refused), with a stub `aws` on PATH that answers describe-change-set in two pages."""

import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "infra" / "deploy_tool.py"


def settings(tmp_path, overrides=(), samconfig=None, stack=None):
    args = [sys.executable, str(TOOL), "settings"]
    if samconfig is not None:
        (tmp_path / "samconfig.toml").write_text(samconfig)
        args += ["--samconfig", str(tmp_path / "samconfig.toml")]
    if stack is not None:
        (tmp_path / "stack.json").write_text(json.dumps(
            {"Parameters": [{"ParameterKey": k, "ParameterValue": v} for k, v in stack.items()]}))
        args += ["--stack-json", str(tmp_path / "stack.json")]
    for o in overrides:
        args += ["--overrides", o]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return tuple(out.rstrip("\n").split("\t"))


def test_the_settings_come_from_the_overrides_then_samconfig_then_the_stack_then_the_defaults(tmp_path):
    assert settings(tmp_path) == ("production", "")
    stack = {"Environment": "test", "WebAclArn": "arn:stack"}
    assert settings(tmp_path, stack=stack) == ("test", "arn:stack")
    samconfig = '[default.deploy.parameters]\nparameter_overrides = ["Environment=production", "WebAclArn=arn:cfg"]\n'
    assert settings(tmp_path, samconfig=samconfig, stack=stack) == ("production", "arn:cfg")
    # Quoted values and the last of several --parameter-overrides win.
    got = settings(tmp_path, ["MailFrom=a@b.c WebAclArn=\"arn:one\"", "WebAclArn="], samconfig=samconfig, stack=stack)
    assert got == ("production", "")


def review(tmp_path, pages, *extra):
    """Runs `review` with a stub aws that answers the pages in order (by --next-token)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for i, page in enumerate(pages):
        (tmp_path / f"page{i}.json").write_text(json.dumps(page))
    (bin_dir / "aws").write_text(
        "#!/usr/bin/env bash\n"
        f'echo "$*" >> {tmp_path}/calls\n'
        'all="$*"; case " $all " in *" --next-token "*) n="${all##*--next-token }"; n="${n%% *}" ;; *) n=0 ;; esac\n'
        f'cat {tmp_path}/page$n.json\n'
    )
    (bin_dir / "aws").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    return subprocess.run(
        [sys.executable, str(TOOL), "review", "--stack", "ciam", "--region", "eu-west-1", "--change-set", "cs1", *extra],
        capture_output=True, text=True, env=env,
    )


def change(action, logical, kind, replacement=None):
    r = {"Action": action, "LogicalResourceId": logical, "ResourceType": kind}
    if replacement:
        r["Replacement"] = replacement
    return {"Type": "Resource", "ResourceChange": r}


PAGES = [
    {"ChangeSetName": "cs1", "Status": "CREATE_COMPLETE", "NextToken": "1",
     "Changes": [change("Modify", "AuthInfoGetFunction", "AWS::Lambda::Function", "False"),
                 change("Modify", "AvatarBucket", "AWS::S3::Bucket", "Conditional")]},
    {"Changes": [change("Remove", "StaffSecret", "AWS::SecretsManager::Secret"),
                 change("Modify", "ApiStage", "AWS::ApiGatewayV2::Stage", "True")]},
]


def test_every_page_is_read_destructive_changes_come_first_and_protected_ones_are_refused(tmp_path):
    done = review(tmp_path, PAGES)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "4 change(s)" in done.stdout, "both pages"
    assert (tmp_path / "calls").read_text().count("describe-change-set") == 2
    lines = [line for line in done.stdout.splitlines() if line.startswith("  ") and "::" in line]
    # Replacements (True and Conditional) and removals first, then the in-place changes.
    assert [line.split()[-1] if "PROTECTED" not in line else line.split()[3] for line in lines] == [
        "ApiStage", "AvatarBucket", "StaffSecret", "AuthInfoGetFunction"]
    assert "would replace or delete AvatarBucket (AWS::S3::Bucket, Modify replacement Conditional), StaffSecret" in done.stderr
    assert "ApiStage" not in done.stderr, "a replaced stage is not protected"


def test_allow_replacement_lets_it_through_and_says_so(tmp_path):
    done = review(tmp_path, PAGES, "--allow-replacement")
    assert done.returncode == 0, done.stderr
    assert "WILL be replaced or deleted: AvatarBucket" in done.stdout


def test_a_change_set_of_in_place_changes_passes(tmp_path):
    done = review(tmp_path, [{"ChangeSetName": "cs1", "Changes": [change("Modify", "Table", "AWS::DynamoDB::Table", "False")]}])
    assert done.returncode == 0, done.stderr
    assert "Table" in done.stdout and "PROTECTED" not in done.stdout


def canary_account(tmp_path, mailbox="ciam-canary@yourcompany.example"):
    """Runs `canary-account` with a stub aws that answers the stack's output and keeps what
    put-secret-value was given (the file's content, read while it exists) and its argv."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "aws").write_text(
        "#!/usr/bin/env bash\n"
        f'echo "$*" >> {tmp_path}/calls\n'
        'case "$1 $2" in\n'
        '  "cloudformation describe-stacks") echo arn:aws:secretsmanager:eu-west-1:1:secret:canary-x ;;\n'
        '  "secretsmanager put-secret-value")\n'
        '    for a in "$@"; do case "$a" in file://*) f="${a#file://}"; cat "$f" >> ' f'{tmp_path}/put; stat -c %a "$f" >> {tmp_path}/mode ;; esac; done ;;\n'
        "esac\n"
    )
    (bin_dir / "aws").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    return subprocess.run(
        [sys.executable, str(TOOL), "canary-account", "--stack", "ciam", "--region", "eu-west-1", "--mailbox", mailbox],
        capture_output=True, text=True, env=env,
    )


def test_the_canary_account_is_random_and_kept_only_in_its_secret(tmp_path):
    """Issue 30 item 10: not a fixed name; 96 random bits in the sign-in name, a random password,
    both written into the canary's secret through a private file, never on a command line."""
    import re

    done = canary_account(tmp_path)
    assert done.returncode == 0, done.stderr
    put = json.loads((tmp_path / "put").read_text())
    assert put["SecretId"] == "arn:aws:secretsmanager:eu-west-1:1:secret:canary-x"
    secret = json.loads(put["SecretString"])
    assert re.fullmatch(r"ciam-canary\+canary-[0-9a-f]{24}@yourcompany\.example", secret["account"]), secret
    assert len(secret["password"]) >= 32
    assert (tmp_path / "mode").read_text().strip() == "600", "the file only its owner reads"
    calls = (tmp_path / "calls").read_text()
    assert secret["password"] not in calls and secret["account"] not in calls, "never in argv"
    assert not list(pathlib.Path(tempfile_dir()).glob("ciam-canary-*")), "the file is removed"
    # Printed once, for the sign-up.
    assert secret["account"] in done.stdout and secret["password"] in done.stdout
    # Another run, another name.
    again = canary_account(tmp_path / ".." / tmp_path.name)
    assert again.returncode == 0
    names = [json.loads(json.loads(line)["SecretString"])["account"] for line in
             (tmp_path / "put").read_text().replace("}{", "}\n{").splitlines()]
    assert len(set(names)) == 2


def tempfile_dir():
    import tempfile

    return tempfile.gettempdir()


def test_the_canary_mailbox_must_be_a_plain_address(tmp_path):
    for bad in ("no-at-sign", "a+tag@example.com", "@example.com"):
        done = canary_account(tmp_path, bad)
        assert done.returncode == 2 and "--mailbox" in done.stderr, bad
