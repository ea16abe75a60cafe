#!/usr/bin/env bash
# (Over 500 lines: one deploy's steps in order, each short, for both cells; JSON is deploy_tool.py's.)
# Deploys Ciam to AWS: the backend (sam build through scripts/build-lambda.sh, which also checks
# every function's zip size; sam package to the artefact bucket under releases/<git sha>/, the
# packaged template kept there; sam deploy, through a reviewed change set in production; the
# stack policy infra/stack-policy.json), then the web app (vite build, kept with the release,
# the upload of infra/upload_web.py, a CloudFront invalidation of /index.html), then
# releases/last-good. docs/operations.md §7 explains each step, §8 the first deploy and
# §8.x "Rolling back".
#
# Usage: infra/deploy.sh [options] [-- extra arguments for sam deploy]
#   --cell global|cn             which cell (docs/multi-region.md section 12): global (default,
#                                template.yaml, any Region outside China) or cn (infra/cn.yaml, in
#                                cn-north-1 or cn-northwest-1 with the aws-cn account's
#                                credentials: no web ACL stack, an IAM server certificate and the
#                                ICP-filed DomainName, the provider secrets; samconfig.toml's
#                                [cn.*] sections, `sam ... --config-env cn`)
#   --stack-name NAME            default: $CIAM_STACK_NAME, else samconfig.toml's, else "ciam"
#   --region REGION              default: $AWS_REGION, $AWS_DEFAULT_REGION, samconfig.toml's,
#                                else `aws configure get region`
#   --parameter-overrides 'K=V ...'  passed to sam deploy (repeatable); parameters not given
#                                keep their previous value on an existing stack
#   --guided                     first deploy: `sam deploy --guided` asks for every parameter and
#                                saves the answers in samconfig.toml for the next runs
#   --web-only                   skip sam build and sam deploy (a release of the web app alone)
#   --brand DIR                  the operator's brand (default $CIAM_BRAND_DIR): a folder with
#                                brand.json, written into the web build by web/scripts/brand.mjs
#                                (docs/operations.md "The brand"); an accent below 7:1 stops here
#   --rollback [SHA]             deploy a kept release WITHOUT a build: its packaged template from
#                                the artefact bucket (default: the release before last-good), then
#                                its web app if it was kept
#   --artifact-bucket BUCKET     where releases are kept: default $CIAM_ARTIFACT_BUCKET, else
#                                samconfig.toml's s3_bucket, else SAM's managed bucket
#   --allow-replacement          let this deploy replace or delete a resource the stack policy
#                                protects (table, secrets, KMS key, buckets, distribution)
#   --console-host NAME          the operator console's own host name ('' for none): given to both
#                                stacks, the web ACL's (infra/waf.yaml, us-east-1, deployed first)
#                                and this one (ConsoleHostName, the distribution's second name)
#   --console-allow 'CIDR,...'   the networks the console may be used from, IPv4 and IPv6 mixed
#                                ('' for any address): given to the web ACL's stack (split into
#                                ConsoleAllowedIpv4 and ConsoleAllowedIpv6), which keeps it
#   --waf-stack-name NAME        the web ACL's stack: default $CIAM_WAF_STACK_NAME, else <stack>-waf
#   --yes                        execute a production change set without asking (no terminal)
#   --dry-run                    check the prerequisites and print every command that would change
#                                something instead of running it (read-only calls still run),
#                                the change set review step included
#   -h, --help
# Production (the stack's Environment parameter, default production) needs the web ACL
# (WebAclArn), the backup copy vault (BackupCopyVaultArn), the secret replica Region
# (SecretReplicaRegion) and a compliance-mode vault lock (BackupVaultLockChangeableForDays >= 3);
# a test stack says so: --parameter-overrides 'Environment=test'.
# The console's door (docs/operations.md §11): ConsoleHostName in --parameter-overrides counts as
# --console-host; with either option the web ACL's stack is updated before this one, with the
# same host name (the allow-list alone: this stack's current one).
# The cn cell has no web ACL: it refuses --console-host, --console-allow, --waf-stack-name and
# WebAclArn; production there needs ClientLimits, DomainName and IamCertificateId, the backup
# copy and secret replica in the other China Region, and its provider secrets
# (MailRelaySecretName, SmsProviderSecretName) existing (docs/operations.md section 8.9).
# The web upload writes the cell's name (and OtherCellUrl, the other cell's portal) into
# index.html; in the cn cell also a copy of it at each of the SPA's paths.
# Environment: AWS_PROFILE and the usual AWS variables; CIAM_PYTHON (default .venv/bin/python).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK_NAME="${CIAM_STACK_NAME:-}"
# The cell: its template and its samconfig.toml environment (sam --config-env).
CELL=global
SOURCE_TEMPLATE="$ROOT/template.yaml"
CONFIG_ENV=default
SAM_ENV=()
OTHER_CELL=""
REGION=""
GUIDED=false
WEB_ONLY=false
BRAND_DIR="${CIAM_BRAND_DIR:-}"
DRY_RUN=false
ROLLBACK=false
ROLLBACK_SHA=""
ALLOW_REPLACEMENT=false
YES=false
ARTIFACT_BUCKET="${CIAM_ARTIFACT_BUCKET:-}"
RELEASE=""
TEMPLATE=""
ENVIRONMENT=""
WEB_ACL=""
STACK_EXISTS=false
RESTORE_POLICY=false
WORK="$(mktemp -d)"
POLICY="$ROOT/infra/stack-policy.json"
# The policy of a deliberate replacement (--allow-replacement), in place only while it runs.
OPEN_POLICY='{"Statement":[{"Effect":"Allow","Action":"Update:*","Principal":"*","Resource":"*"}]}'
OVERRIDES=()
SAM_EXTRA=()
MISSING=()
SAM=""
PY=""
WEB_BUCKET=""
DISTRIBUTION_ID=""
PUBLIC_URL=""
DIST="$ROOT/web/dist"
# The console's door (--console-host, --console-allow): one setting for both stacks.
CONSOLE_HOST=""
CONSOLE_HOST_SET=false
CONSOLE_ALLOW=""
CONSOLE_ALLOW_SET=false
CONSOLE_IPV4=""
CONSOLE_IPV6=""
WAF_STACK="${CIAM_WAF_STACK_NAME:-}"
WAF_STACK_SET=false
# AWS WAF for CloudFront lives in us-east-1 only.
WAF_REGION=us-east-1

log() { printf '%s\n' "$*"; }
step() { printf '\n== %s\n' "$*"; }
die() { printf 'deploy: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

# Runs a command that changes something; in a dry run prints it instead.
run() {
  if $DRY_RUN; then
    printf '+'; printf ' %q' "$@"; printf '\n'
  else
    "$@"
  fi
}

# need NAME MESSAGE: a missing prerequisite stops a real run at once; a dry run lists them all, then fails.
need() {
  if $DRY_RUN; then
    printf 'deploy: missing %s: %s\n' "$1" "$2" >&2
    MISSING+=("$1")
  else
    die "$2"
  fi
}

parse_args() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --stack-name) [ $# -ge 2 ] || die "--stack-name needs a value"; STACK_NAME="$2"; shift 2 ;;
      --region) [ $# -ge 2 ] || die "--region needs a value"; REGION="$2"; shift 2 ;;
      --parameter-overrides) [ $# -ge 2 ] || die "--parameter-overrides needs a value"; OVERRIDES+=("$2"); shift 2 ;;
      --guided) GUIDED=true; shift ;;
      --web-only) WEB_ONLY=true; shift ;;
      --brand) [ $# -ge 2 ] || die "--brand needs a value"; BRAND_DIR="$2"; shift 2 ;;
      --dry-run) DRY_RUN=true; shift ;;
      --rollback)
        ROLLBACK=true; shift
        if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then ROLLBACK_SHA="$1"; shift; fi ;;
      --artifact-bucket) [ $# -ge 2 ] || die "--artifact-bucket needs a value"; ARTIFACT_BUCKET="$2"; shift 2 ;;
      --allow-replacement) ALLOW_REPLACEMENT=true; shift ;;
      --yes) YES=true; shift ;;
      --console-host) [ $# -ge 2 ] || die "--console-host needs a value ('' for none)"; CONSOLE_HOST="$2"; CONSOLE_HOST_SET=true; shift 2 ;;
      --console-allow) [ $# -ge 2 ] || die "--console-allow needs a value ('' for any address)"; CONSOLE_ALLOW="$2"; CONSOLE_ALLOW_SET=true; shift 2 ;;
      --waf-stack-name) [ $# -ge 2 ] || die "--waf-stack-name needs a value"; WAF_STACK="$2"; WAF_STACK_SET=true; shift 2 ;;
      --cell) [ $# -ge 2 ] || die "--cell needs a value: global or cn"; CELL="$2"; shift 2 ;;
      -h | --help) usage; exit 0 ;;
      --) shift; SAM_EXTRA=("$@"); break ;;
      *) die "unknown option $1 (infra/deploy.sh --help)" ;;
    esac
  done
  if $GUIDED && $WEB_ONLY; then die "--guided deploys the stack; it cannot go with --web-only"; fi
  if $ROLLBACK && { $GUIDED || $WEB_ONLY; }; then die "--rollback deploys a kept release; it cannot go with --guided or --web-only"; fi
  if { $CONSOLE_HOST_SET || $CONSOLE_ALLOW_SET; } && { $WEB_ONLY || $ROLLBACK; }; then
    die "--console-host and --console-allow change both stacks; they cannot go with --web-only or --rollback"
  fi
  case "$CELL" in
    global) ;;
    cn)
      SOURCE_TEMPLATE="$ROOT/infra/cn.yaml"
      CONFIG_ENV=cn
      SAM_ENV=(--config-env cn)
      # The console's door is the global cell's web ACL (infra/waf.yaml), which China cannot put
      # on CloudFront (WAF there is regional only).
      if $CONSOLE_HOST_SET || $CONSOLE_ALLOW_SET || $WAF_STACK_SET; then
        die "--cell cn has no web ACL: --console-host, --console-allow and --waf-stack-name are the global cell's (its door is infra/waf.yaml, which China cannot put on CloudFront); the cn cell's console is served under DomainName's /{lang}/admin, and ClientLimits limits each client (docs/operations.md section 8.9)"
      fi ;;
    *) die "--cell $CELL: global or cn" ;;
  esac
}

cleanup() {
  # A deliberate replacement opened the stack policy: close it again whatever happened.
  if $RESTORE_POLICY; then
    aws cloudformation set-stack-policy --stack-name "$STACK_NAME" --region "$REGION" \
      --stack-policy-body "file://$POLICY" ||
      printf 'deploy: error: could not restore the stack policy: aws cloudformation set-stack-policy --stack-name %s --stack-policy-body file://%s\n' "$STACK_NAME" "$POLICY" >&2
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# samconfig.toml (written by --guided) gives the stack name and region when none was passed.
samconfig() {
  [ -f "$ROOT/samconfig.toml" ] || return 0
  "$PY" - "$ROOT/samconfig.toml" "$1" "$CONFIG_ENV" <<'EOF' 2>/dev/null || true
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print(tomllib.load(f).get(sys.argv[3], {}).get("deploy", {}).get("parameters", {}).get(sys.argv[2], ""))
EOF
}

# Whether samconfig.toml has this cell's deploy section (then it says what may be created).
samconfig_has_cell() {
  [ -f "$ROOT/samconfig.toml" ] || return 1
  [ "$CONFIG_ENV" = default ] && return 0
  "$PY" - "$ROOT/samconfig.toml" "$CONFIG_ENV" <<'EOF' 2>/dev/null
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    sys.exit(0 if tomllib.load(f).get(sys.argv[2], {}).get("deploy") else 1)
EOF
}

check_prerequisites() {
  step "prerequisites"
  PY="${CIAM_PYTHON:-$ROOT/.venv/bin/python}"
  if [ ! -x "$PY" ]; then PY="$(command -v python3 || true)"; fi
  [ -n "$PY" ] || die "python3 not found (the upload tool is Python; bash scripts/setup.sh makes .venv)"
  "$PY" -c 'import boto3' 2>/dev/null || need boto3 "boto3 not importable by $PY: bash scripts/setup.sh (or pip install boto3)"

  command -v aws >/dev/null || need aws "aws CLI not found: install AWS CLI v2 (reads the stack outputs, invalidates CloudFront)"
  if ! $WEB_ONLY && ! $ROLLBACK; then
    # The build tools bash scripts/setup.sh installs in .venv (scripts/build-lambda.sh, which
    # runs sam build, puts .venv/bin first on PATH the same way).
    [ -d "$ROOT/.venv/bin" ] && export PATH="$ROOT/.venv/bin:$PATH"
    SAM="$(command -v sam || true)"
    [ -n "$SAM" ] || need sam "sam (AWS SAM CLI) not found: bash scripts/setup.sh puts it in .venv, or pip install aws-sam-cli"
    SAM="${SAM:-sam}"
    # sam build compiles the two binaries (bootstrap, passkeys) with cargo-lambda, which
    # cross-compiles with zig.
    command -v cargo >/dev/null || need cargo "cargo not found: install Rust (rustup) to build the functions"
    command -v cargo-lambda >/dev/null ||
      need cargo-lambda "cargo-lambda not found: bash scripts/setup.sh puts it in .venv (PyPI cargo-lambda)"
    command -v zig >/dev/null ||
      need zig "zig not found (cargo-lambda links the arm64 bootstrap with it): bash scripts/setup.sh puts it in .venv (PyPI ziglang)"
  fi
  if $ROLLBACK; then
    [ -d "$ROOT/.venv/bin" ] && export PATH="$ROOT/.venv/bin:$PATH"
    SAM="$(command -v sam || true)"
    [ -n "$SAM" ] || need sam "sam (AWS SAM CLI) not found: bash scripts/setup.sh puts it in .venv, or pip install aws-sam-cli"
    SAM="${SAM:-sam}"
  else
    command -v npm >/dev/null || need npm "npm not found: install Node.js 20+ to build the web app"
    [ -d "$ROOT/node_modules" ] || need node_modules "node_modules missing: bash scripts/setup.sh (or npm ci)"
  fi

  [ -n "$STACK_NAME" ] || STACK_NAME="$(samconfig stack_name)"
  STACK_NAME="${STACK_NAME:-ciam}"
  [ -n "$REGION" ] || REGION="${AWS_REGION:-${AWS_DEFAULT_REGION:-}}"
  [ -n "$REGION" ] || REGION="$(samconfig region)"
  if [ -z "$REGION" ] && command -v aws >/dev/null; then REGION="$(aws configure get region 2>/dev/null || true)"; fi
  [ -n "$REGION" ] || need region "no region: pass --region, set AWS_REGION, or aws configure set region ..."

  if command -v aws >/dev/null; then
    local who
    if who="$(aws sts get-caller-identity --query Arn --output text 2>/dev/null)"; then
      log "AWS identity: $who"
    else
      need credentials "no usable AWS credentials: aws configure, AWS_PROFILE=..., or aws sso login"
    fi
  fi
  log "stack $STACK_NAME in ${REGION:-?}"
  if $DRY_RUN && [ ${#MISSING[@]} -gt 0 ]; then log "(dry run: continuing to show the plan; it will fail at the end)"; fi
}

# The deployed stack (its parameters and outputs), or nothing before the first deploy.
read_stack() {
  if aws cloudformation describe-stacks --stack-name "$STACK_NAME" --region "$REGION" \
    --query 'Stacks[0]' --output json >"$WORK/stack.json" 2>/dev/null; then
    STACK_EXISTS=true
  else
    : >"$WORK/stack.json"
  fi
}

# Each cell in its own partition: the global stack never in China, the cn stack only there.
check_region() {
  [ -n "$REGION" ] || return 0
  case "$REGION" in
    cn-north-1 | cn-northwest-1)
      [ "$CELL" = cn ] || die "--region $REGION is in AWS China (aws-cn): the global stack (template.yaml) cannot deploy there (no function URLs, SES, SNS SMS, CloudFront Functions or ACM on CloudFront); deploy the mainland cell: infra/deploy.sh --cell cn" ;;
    *)
      [ "$CELL" = global ] || die "--cell cn deploys infra/cn.yaml in cn-north-1 or cn-northwest-1 only (the aws-cn partition, its own account and credentials), not in $REGION" ;;
  esac
}

# The cn cell (deploy_tool.py cell): nothing China lacks (WebAclArn, CertificateArn, a console
# host), and what it needs instead: the ICP-filed DomainName and IamCertificateId (which IAM must
# hold under /cloudfront/), the provider secrets, and in production ClientLimits and the data's
# safety in the other China Region. The template's rules refuse the same; this stops it before a build.
check_cn() {
  local cmd=("$PY" "$ROOT/infra/deploy_tool.py" cell --cell cn --region "$REGION" --stack "$STACK_NAME"
    --stack-json "$WORK/stack.json" --samconfig "$ROOT/samconfig.toml" --config-env "$CONFIG_ENV" --template "$SOURCE_TEMPLATE")
  local o out status=0
  for o in "${OVERRIDES[@]}"; do cmd+=(--overrides "$o"); done
  out="$("${cmd[@]}")" || status=$?
  ENVIRONMENT="$(head -n1 <<<"$out")"
  tail -n +2 <<<"$out"
  # The refusals are on stderr already.
  [ "$status" -eq 0 ] || exit 1
}

# Production needs the web ACL: without it nothing limits one client (docs/operations.md §8).
# Environment and WebAclArn are read from --parameter-overrides, else samconfig.toml, else the
# deployed stack; the template's rule refuses the same (this stops it before a build).
check_web_acl() {
  { $WEB_ONLY || $GUIDED; } && return 0
  if [ "$CELL" = cn ]; then check_cn; return 0; fi
  local cmd=("$PY" "$ROOT/infra/deploy_tool.py" settings --stack-json "$WORK/stack.json" --samconfig "$ROOT/samconfig.toml")
  local o
  for o in "${OVERRIDES[@]}"; do cmd+=(--overrides "$o"); done
  IFS=$'\t' read -r ENVIRONMENT WEB_ACL <<<"$("${cmd[@]}")" || die "cannot read Environment and WebAclArn"
  case "$ENVIRONMENT" in
    production | test) ;;
    *) die "Environment=$ENVIRONMENT: production or test" ;;
  esac
  log "Environment=$ENVIRONMENT WebAclArn=${WEB_ACL:-<empty>}"
  if [ "$ENVIRONMENT" = production ] && [ -z "$WEB_ACL" ]; then
    die "refusing to deploy the production stack $STACK_NAME without the web ACL (WebAclArn is empty):
  deploy infra/waf.yaml in us-east-1 and pass --parameter-overrides 'WebAclArn=arn:aws:wafv2:us-east-1:...'
  (docs/operations.md section 8); a test stack says so explicitly: --parameter-overrides 'Environment=test'"
  fi
  [ "$ENVIRONMENT" = production ] || return 0
  # The same layers for the data's safety (docs/operations.md §8.5; the template's Rules
  # ProductionNeedsBackupCopy, ProductionNeedsSecretReplica, ProductionLocksBackupsInComplianceMode).
  local copy replica lock
  { read -r copy; read -r replica; read -r lock; } < <("${cmd[@]}" --keys BackupCopyVaultArn,SecretReplicaRegion,BackupVaultLockChangeableForDays) ||
    die "cannot read BackupCopyVaultArn, SecretReplicaRegion and BackupVaultLockChangeableForDays"
  local missing=()
  [ -n "$copy" ] || missing+=("BackupCopyVaultArn is empty: deploy infra/backup-vault.yaml in another Region and pass its VaultArn output")
  [ -n "$replica" ] || missing+=("SecretReplicaRegion is empty: name another Region for the secrets' replica")
  [ "${lock:-0}" != 0 ] || missing+=("BackupVaultLockChangeableForDays is 0 (governance mode): set 3 or more for a compliance-mode lock")
  if [ ${#missing[@]} -gt 0 ]; then
    die "refusing to deploy the production stack $STACK_NAME without its data's safety:
$(printf '  %s\n' "${missing[@]}")  (docs/operations.md section 8.5); a test stack says so explicitly: --parameter-overrides 'Environment=test'"
  fi
  log "BackupCopyVaultArn=$copy SecretReplicaRegion=$replica BackupVaultLockChangeableForDays=$lock"
}

# The console's door: one host name and one allow-list for the two stacks (docs/operations.md
# §11). ConsoleHostName in --parameter-overrides counts as --console-host; with either setting
# the web ACL's stack is checked here (it must exist: production needs it anyway) and updated
# by deploy_console_door before this stack, so the door closes before a new name opens.
console_door() {
  { $WEB_ONLY || $ROLLBACK || [ "$CELL" = cn ]; } && return 0
  local named
  if named="$("$PY" - "${OVERRIDES[@]}" <<'EOF'
import shlex, sys
found = [t.split("=", 1)[1] for text in sys.argv[1:] for t in shlex.split(text) if t.startswith("ConsoleHostName=")]
print(found[-1] if found else "")
sys.exit(0 if found else 1)
EOF
)"; then
    if $CONSOLE_HOST_SET && [ "$named" != "$CONSOLE_HOST" ]; then
      die "--console-host $CONSOLE_HOST and --parameter-overrides ConsoleHostName=$named disagree: give one"
    fi
    if ! $CONSOLE_HOST_SET; then CONSOLE_HOST="$named"; CONSOLE_HOST_SET=true; fi
  elif $CONSOLE_HOST_SET; then
    OVERRIDES+=("ConsoleHostName=$CONSOLE_HOST")
  fi
  { $CONSOLE_HOST_SET || $CONSOLE_ALLOW_SET; } || return 0
  if [ -n "$CONSOLE_HOST" ] && ! [[ "$CONSOLE_HOST" =~ ^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$ ]]; then
    die "--console-host $CONSOLE_HOST: a lower-case host name such as console.example.com ('' for none)"
  fi
  if ! $CONSOLE_HOST_SET; then
    # The allow-list alone: the web ACL gets the host name this stack has (or will keep).
    local cmd=("$PY" "$ROOT/infra/deploy_tool.py" settings --stack-json "$WORK/stack.json" --samconfig "$ROOT/samconfig.toml" --keys ConsoleHostName)
    CONSOLE_HOST="$("${cmd[@]}")" || die "cannot read ConsoleHostName"
  fi
  if $CONSOLE_ALLOW_SET; then
    local lists
    lists="$("$PY" - "$CONSOLE_ALLOW" <<'EOF'
import ipaddress, sys
families = {4: [], 6: []}
for item in (x.strip() for x in sys.argv[1].split(",")):
    if not item:
        continue
    try:
        net = ipaddress.ip_network(item, strict=True)
    except ValueError as e:
        sys.exit(f"deploy: error: --console-allow: {item} is not a network in CIDR notation ({e})")
    if net.prefixlen == 0:
        sys.exit(f"deploy: error: --console-allow: {item} is every address: leave the list empty ('') for any address")
    families[net.version].append(str(net))
print(",".join(families[4]) + "|" + ",".join(families[6]))
EOF
)" || exit 1
    # "|", not a tab: read would merge an empty IPv4 list into the separator (IFS whitespace).
    IFS='|' read -r CONSOLE_IPV4 CONSOLE_IPV6 <<<"$lists"
  fi
  WAF_STACK="${WAF_STACK:-$STACK_NAME-waf}"
  aws cloudformation describe-stacks --stack-name "$WAF_STACK" --region "$WAF_REGION" \
    --query 'Stacks[0].StackName' --output text >/dev/null 2>&1 ||
    need waf-stack "no web ACL stack $WAF_STACK in $WAF_REGION: deploy infra/waf.yaml first (docs/operations.md section 3), or name it: --waf-stack-name NAME"
  local allow=""
  $CONSOLE_ALLOW_SET && allow=" ConsoleAllowedIpv4=${CONSOLE_IPV4:-<none>} ConsoleAllowedIpv6=${CONSOLE_IPV6:-<none>}"
  log "console door: ConsoleHostName=${CONSOLE_HOST:-<any host>}$allow (web ACL stack $WAF_STACK in $WAF_REGION first, then $STACK_NAME)"
}

# The web ACL's stack gets the console's door before this stack changes (parameters not given
# keep their values: the allow-list stays as it was when only the host name is given).
deploy_console_door() {
  { $CONSOLE_HOST_SET || $CONSOLE_ALLOW_SET; } || return 0
  step "the console's door: web ACL stack $WAF_STACK ($WAF_REGION)"
  local params=("ConsoleHostName=$CONSOLE_HOST")
  if $CONSOLE_ALLOW_SET; then params+=("ConsoleAllowedIpv4=$CONSOLE_IPV4" "ConsoleAllowedIpv6=$CONSOLE_IPV6"); fi
  run aws cloudformation deploy --region "$WAF_REGION" --stack-name "$WAF_STACK" \
    --template-file "$ROOT/infra/waf.yaml" --no-fail-on-empty-changeset --parameter-overrides "${params[@]}"
}

# The bucket that keeps the releases: --artifact-bucket, $CIAM_ARTIFACT_BUCKET, samconfig.toml's
# s3_bucket, else the bucket of SAM's managed stack (sam deploy --resolve-s3 made it).
resolve_bucket() {
  [ -n "$ARTIFACT_BUCKET" ] || ARTIFACT_BUCKET="$(samconfig s3_bucket)"
  if [ -z "$ARTIFACT_BUCKET" ]; then
    ARTIFACT_BUCKET="$(aws cloudformation describe-stacks --stack-name aws-sam-cli-managed-default --region "$REGION" \
      --query "Stacks[0].Outputs[?OutputKey=='SourceBucket'].OutputValue" --output text 2>/dev/null || true)"
    [ "$ARTIFACT_BUCKET" != None ] || ARTIFACT_BUCKET=""
  fi
}

# The release id: the commit being deployed (a tree with changes is marked -dirty).
release_id() {
  RELEASE="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null)" ||
    die "not a git checkout: a release is named by its commit (releases/<sha>/ in the artefact bucket)"
  if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    RELEASE="$RELEASE-dirty"
    log "note: uncommitted changes: this release is kept as $RELEASE (overwritten by the next dirty one)"
  fi
}

build_backend() {
  { $WEB_ONLY || $ROLLBACK; } && return 0
  step "sam build (npm run build:lambda: bootstrap and passkeys, each zip at most 4 MB)"
  if [ "$CELL" = cn ]; then
    run env CIAM_TEMPLATE="$SOURCE_TEMPLATE" bash "$ROOT/scripts/build-lambda.sh"
  else
    run bash "$ROOT/scripts/build-lambda.sh"
  fi
}

# sam package: the artefacts and the packaged template under releases/<sha>/, kept for a rollback
# without a build.
package_release() {
  { $WEB_ONLY || $ROLLBACK || $GUIDED; } && return 0
  release_id
  resolve_bucket
  step "sam package (release $RELEASE)"
  local args=(package --template-file "$ROOT/.aws-sam/build/template.yaml" --region "$REGION"
    --s3-prefix "releases/$RELEASE" --output-template-file "$ROOT/.aws-sam/packaged.yaml" "${SAM_ENV[@]}")
  if [ -z "$ARTIFACT_BUCKET" ]; then
    if $DRY_RUN; then
      ARTIFACT_BUCKET="<ArtifactBucket>"
    else
      # The first run without samconfig.toml: SAM makes its managed bucket, which is then used.
      (cd "$ROOT" && run "$SAM" "${args[@]}" --resolve-s3)
      resolve_bucket
      [ -n "$ARTIFACT_BUCKET" ] || die "no artefact bucket: pass --artifact-bucket BUCKET (or set s3_bucket in samconfig.toml)"
    fi
  fi
  (cd "$ROOT" && run "$SAM" "${args[@]}" --s3-bucket "$ARTIFACT_BUCKET")
  run aws s3 cp "$ROOT/.aws-sam/packaged.yaml" "s3://$ARTIFACT_BUCKET/releases/$RELEASE/packaged.yaml" --region "$REGION"
  TEMPLATE="$ROOT/.aws-sam/packaged.yaml"
}

# The release a rollback deploys: SHA, or the one before last-good in releases/history.
rollback_target() {
  $ROLLBACK || return 0
  resolve_bucket
  [ -n "$ARTIFACT_BUCKET" ] || die "no artefact bucket to roll back from: pass --artifact-bucket BUCKET"
  step "rollback: find the release"
  local prefix="s3://$ARTIFACT_BUCKET/releases"
  if [ -z "$ROLLBACK_SHA" ]; then
    local last history
    last="$(aws s3 cp "$prefix/last-good" - --region "$REGION" 2>/dev/null | tr -d '[:space:]')" ||
      die "no $prefix/last-good: nothing was deployed by this script yet; name a release: --rollback SHA"
    history="$(aws s3 cp "$prefix/history" - --region "$REGION" 2>/dev/null || true)"
    ROLLBACK_SHA="$(awk -v last="$last" '$1 == last { print prev; exit } { prev = $1 }' <<<"$history")"
    [ -n "$ROLLBACK_SHA" ] || die "no release before $last in $prefix/history; name one: --rollback SHA"
    log "last good: $last; rolling back to the release before it: $ROLLBACK_SHA"
  fi
  RELEASE="$ROLLBACK_SHA"
  TEMPLATE="$WORK/packaged.yaml"
  aws s3 cp "$prefix/$RELEASE/packaged.yaml" "$TEMPLATE" --region "$REGION" >/dev/null 2>&1 ||
    die "release $RELEASE is not kept: no $prefix/$RELEASE/packaged.yaml (aws s3 ls $prefix/)"
  log "packaged template of $RELEASE: $prefix/$RELEASE/packaged.yaml (no build)"
}

# set-stack-policy, or its command in a dry run.
stack_policy() {
  run aws cloudformation set-stack-policy --stack-name "$STACK_NAME" --region "$REGION" "$@"
}

# An existing stack gets the protective policy before the update, or the open one for a
# deliberate replacement (execute-change-set takes no during-update policy, so the open one is
# set for the update and the protective one restored after it, even when it fails).
guard_stack() {
  $STACK_EXISTS || return 0
  if $ALLOW_REPLACEMENT; then
    log "--allow-replacement: the stack policy is opened for this update only"
    $DRY_RUN || RESTORE_POLICY=true
    stack_policy --stack-policy-body "$OPEN_POLICY"
  else
    stack_policy --stack-policy-body "file://$POLICY"
  fi
}

deploy_backend() {
  $WEB_ONLY && return 0
  step "sam deploy (stack $STACK_NAME${RELEASE:+, release $RELEASE})"
  local args=(deploy --stack-name "$STACK_NAME" --region "$REGION" "${SAM_ENV[@]}")
  if $GUIDED; then
    args+=(--guided)
  else
    args+=(--template-file "$TEMPLATE" --s3-bucket "$ARTIFACT_BUCKET" --s3-prefix "releases/$RELEASE")
    # Without a samconfig.toml nothing else says what may be created: roles, and the console's
    # nested stack (infra/console.yaml, an AWS::Serverless::Application: CAPABILITY_AUTO_EXPAND).
    # (The cn cell's: samconfig.toml's [cn.deploy.parameters].)
    samconfig_has_cell || args+=(--capabilities CAPABILITY_IAM CAPABILITY_AUTO_EXPAND)
  fi
  [ ${#OVERRIDES[@]} -eq 0 ] || args+=(--parameter-overrides "${OVERRIDES[@]}")
  if $GUIDED; then
    (cd "$ROOT" && run "$SAM" "${args[@]}" "${SAM_EXTRA[@]}")
  elif [ "$ENVIRONMENT" = production ]; then
    guard_stack
    reviewed_deploy "${args[@]}"
  else
    guard_stack
    # A test stack: no review. An unchanged stack is not an error: the web app may have changed.
    (cd "$ROOT" && run "$SAM" "${args[@]}" --no-confirm-changeset --no-fail-on-empty-changeset "${SAM_EXTRA[@]}")
  fi
  # Set after a create too: from now on the table, secrets, key, buckets and distribution are
  # neither replaced nor deleted by an update without --allow-replacement.
  stack_policy --stack-policy-body "file://$POLICY"
  RESTORE_POLICY=false
}

# The change set ids of the stack (none before it exists).
change_sets() {
  aws cloudformation list-change-sets --stack-name "$STACK_NAME" --region "$REGION" \
    --query 'Summaries[].ChangeSetId' --output text 2>/dev/null | tr '\t' '\n' | grep -v '^None$' | sort || true
}

# Production: the change set is made, reviewed (deploy_tool.py review: replacements and removals
# first; a protected one refused without --allow-replacement), confirmed, then executed.
reviewed_deploy() {
  local review=("$PY" "$ROOT/infra/deploy_tool.py" review --stack "$STACK_NAME" --region "$REGION" --policy "$POLICY")
  $ALLOW_REPLACEMENT && review+=(--allow-replacement)
  if $DRY_RUN; then
    (cd "$ROOT" && run "$SAM" "$@" --no-execute-changeset --no-fail-on-empty-changeset "${SAM_EXTRA[@]}")
    step "change set review (production): replacements and removals first; a protected one refused without --allow-replacement"
    run "${review[@]}" --change-set "<the change set sam deploy made>"
    log "then: confirm on the terminal (or --yes), and"
    run aws cloudformation execute-change-set --stack-name "$STACK_NAME" --region "$REGION" --change-set-name "<the change set>"
    return 0
  fi
  local before after made
  before="$(change_sets)"
  (cd "$ROOT" && "$SAM" "$@" --no-execute-changeset --no-fail-on-empty-changeset "${SAM_EXTRA[@]}")
  after="$(change_sets)"
  made="$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep . | tail -n1 || true)"
  if [ -z "$made" ]; then
    log "no change set: the stack is up to date"
    return 0
  fi
  step "change set review (production)"
  local status=0
  "${review[@]}" --change-set "$made" || status=$?
  if [ "$status" -ne 0 ]; then
    aws cloudformation delete-change-set --stack-name "$STACK_NAME" --region "$REGION" --change-set-name "$made" || true
    die "the change set was not executed (deleted)"
  fi
  if ! $YES; then
    if [ -t 0 ]; then
      local answer
      read -r -p "Execute this change set on the production stack $STACK_NAME? [y/N] " answer
      case "$answer" in
        y | Y | yes) ;;
        *)
          aws cloudformation delete-change-set --stack-name "$STACK_NAME" --region "$REGION" --change-set-name "$made" || true
          die "not confirmed: the change set was deleted, nothing changed"
          ;;
      esac
    else
      aws cloudformation delete-change-set --stack-name "$STACK_NAME" --region "$REGION" --change-set-name "$made" || true
      die "refusing to execute a production change set without a terminal to confirm it: review it above, then rerun with --yes"
    fi
  fi
  aws cloudformation execute-change-set --stack-name "$STACK_NAME" --region "$REGION" --change-set-name "$made"
  local wait=stack-update-complete
  $STACK_EXISTS || wait=stack-create-complete
  aws cloudformation wait "$wait" --stack-name "$STACK_NAME" --region "$REGION" ||
    die "the stack did not reach ${wait#stack-}: aws cloudformation describe-stack-events --stack-name $STACK_NAME (CodeDeploy may have rolled a canary back: docs/operations.md section 8)"
  STACK_EXISTS=true
}

read_outputs() {
  step "stack outputs"
  local json err
  err="$(mktemp)"
  if ! json="$(aws cloudformation describe-stacks --stack-name "$STACK_NAME" --region "$REGION" \
    --query 'Stacks[0]' --output json 2>"$err")"; then
    json="$(cat "$err")"
    rm -f "$err"
    if $DRY_RUN; then
      log "(dry run: stack $STACK_NAME not readable yet; placeholders below)"
      WEB_BUCKET="<WebBucketName>" DISTRIBUTION_ID="<DistributionId>" PUBLIC_URL="<PublicUrl>"
      return 0
    fi
    die "cannot read stack $STACK_NAME in $REGION: $json"
  fi
  rm -f "$err"
  printf '%s' "$json" >"$WORK/outputs.json"
  local values
  values="$("$PY" -c '
import json, sys
stack = json.load(sys.stdin)
outputs = {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs") or []}
params = {p["ParameterKey"]: p.get("ParameterValue", "") for p in stack.get("Parameters") or []}
wanted = ["WebBucketName", "DistributionId", "PublicUrl"]
missing = [k for k in wanted if not outputs.get(k)]
if missing:
    sys.exit("stack output(s) missing: " + ", ".join(missing) + " (deploy a template.yaml that has them)")
print("\t".join(outputs[k] for k in wanted))
# Parameters a production stack should not leave empty (absent ones belong to an older template).
if "PublicBaseUrl" in params and not params["PublicBaseUrl"] and not params.get("DomainName"):
    print("note: PublicBaseUrl and DomainName are empty; the OpenID Connect issuer and links need one:")
    print("      infra/deploy.sh --parameter-overrides PublicBaseUrl=" + outputs["PublicUrl"])
if "WebAclArn" in params and not params["WebAclArn"]:
    print("note: WebAclArn is empty: no web ACL in front of the distribution (docs/operations.md section 8)")
' <<<"$json")" || die "stack $STACK_NAME: see above"
  IFS=$'\t' read -r WEB_BUCKET DISTRIBUTION_ID PUBLIC_URL <<<"$(head -n1 <<<"$values")"
  log "WebBucketName=$WEB_BUCKET DistributionId=$DISTRIBUTION_ID PublicUrl=$PUBLIC_URL"
  tail -n +2 <<<"$values"
  [ "$CELL" = global ] || icp_status
}

# CloudFront in China serves its names only while their ICP recordal is APPROVED (the
# distribution's AliasICPRecordals). Said, never refused: the recordal is the filing's, not this deploy's.
icp_status() {
  local recordals
  if ! recordals="$(aws cloudfront get-distribution --id "$DISTRIBUTION_ID" --region "$REGION" \
    --query 'Distribution.AliasICPRecordals[].[CNAME,ICPRecordalStatus]' --output text 2>/dev/null)"; then
    log "note: the ICP recordal status was not read: aws cloudfront get-distribution --id $DISTRIBUTION_ID --region $REGION --query Distribution.AliasICPRecordals"
    return 0
  fi
  log "ICP recordal: $(tr '\t\n' ' ;' <<<"$recordals")"
  if grep -qv 'APPROVED$' <<<"$recordals"; then
    log "note: a name whose recordal is not APPROVED is not served in China (PENDING: wait; SUSPENDED: see the filing, docs/operations.md section 8.9)"
  fi
}

build_web() {
  $ROLLBACK && return 0
  step "web build (vite -> web/dist)"
  (cd "$ROOT" && run npm run build --workspace web)
  $DRY_RUN || [ -f "$ROOT/web/dist/index.html" ] || die "the web build left no web/dist/index.html"
  if [ -n "$BRAND_DIR" ]; then
    step "the brand ($BRAND_DIR) into web/dist (web/scripts/brand.mjs)"
    run node "$ROOT/web/scripts/brand.mjs" --brand "$BRAND_DIR" --dist "$ROOT/web/dist" || die "the brand was refused (see above)"
  fi
}

# The web build goes with its release (releases/<sha>/web.tar.gz), so a rollback restores the
# web app that matches the backend it deploys.
keep_web() {
  { $ROLLBACK || [ -z "$RELEASE" ]; } && return 0
  step "keep the web build with release $RELEASE"
  run tar -czf "$WORK/web.tar.gz" -C "$ROOT/web/dist" .
  run aws s3 cp "$WORK/web.tar.gz" "s3://$ARTIFACT_BUCKET/releases/$RELEASE/web.tar.gz" --region "$REGION"
}

# A rollback's web app: the one kept with the release, if it was.
fetch_web() {
  $ROLLBACK || return 0
  step "rollback: the web app of release $RELEASE"
  if aws s3 cp "s3://$ARTIFACT_BUCKET/releases/$RELEASE/web.tar.gz" "$WORK/web.tar.gz" --region "$REGION" >/dev/null 2>&1; then
    mkdir -p "$WORK/web"
    tar -xzf "$WORK/web.tar.gz" -C "$WORK/web"
    DIST="$WORK/web"
    log "the web app of $RELEASE is uploaded again (its hashed assets were kept; the newer ones are marked stale)"
  else
    DIST=""
    log "note: the web app is NOT rolled back: release $RELEASE kept no web build. The current web app"
    log "      stays (it talks to /ciam/v1, which stays compatible); to deploy that release's web app:"
    log "      git checkout $RELEASE && infra/deploy.sh --web-only"
  fi
}

# The other cell's portal for the page's link: OtherCellUrl from --parameter-overrides, else
# samconfig.toml, else the stack ('' or absent: none).
other_cell() {
  local cmd=("$PY" "$ROOT/infra/deploy_tool.py" settings --stack-json "$WORK/outputs.json" --samconfig "$ROOT/samconfig.toml"
    --config-env "$CONFIG_ENV" --keys OtherCellUrl)
  local o
  for o in "${OVERRIDES[@]}"; do cmd+=(--overrides "$o"); done
  OTHER_CELL="$("${cmd[@]}")" || die "cannot read OtherCellUrl"
}

upload_web() {
  [ -n "$DIST" ] || return 0
  other_cell
  local what="assets first, index.html last, old files marked stale"
  [ "$CELL" = cn ] && what="assets first, then index.html at each of the SPA's paths, index.html last, old files marked stale"
  step "upload $DIST to s3://$WEB_BUCKET ($what)"
  local cmd=("$PY" "$ROOT/infra/upload_web.py" --bucket "$WEB_BUCKET" --region "$REGION" --dist "$DIST" --cell "$CELL")
  [ -z "$OTHER_CELL" ] || cmd+=(--other-cell "$OTHER_CELL")
  run "${cmd[@]}"
  if $DRY_RUN && [ -f "$DIST/index.html" ]; then "${cmd[@]}" --dry-run | sed 's/^/  /'; fi
}

# After a whole deploy: releases/last-good names it, and releases/history (one sha a line,
# oldest first) gets it, which is what `--rollback` with no SHA steps back through. A rollback
# moves last-good only, so a second rollback goes one release further back.
remember_release() {
  { $WEB_ONLY || [ -z "$RELEASE" ]; } && return 0
  step "release $RELEASE is the last good one"
  local prefix="s3://$ARTIFACT_BUCKET/releases"
  if ! $ROLLBACK; then
    local history
    history="$(aws s3 cp "$prefix/history" - --region "$REGION" 2>/dev/null || true)"
    printf '%s\n' "$history" | grep . | grep -vx "$RELEASE" >"$WORK/history" || true
    printf '%s\n' "$RELEASE" >>"$WORK/history"
    run aws s3 cp "$WORK/history" "$prefix/history" --region "$REGION"
  fi
  printf '%s\n' "$RELEASE" >"$WORK/last-good"
  run aws s3 cp "$WORK/last-good" "$prefix/last-good" --region "$REGION"
}

invalidate_index() {
  local paths=(/index.html) where=()
  if [ "$CELL" = cn ]; then
    # The deep links' copies too; CloudFront in China answers at cloudfront.cn-northwest-1.amazonaws.com.cn,
    # which the CLI picks from a China Region only.
    local listed
    listed="$("$PY" "$ROOT/infra/upload_web.py" --cell cn --invalidation-paths)" || die "cannot list the SPA's paths (infra/upload_web.py --cell cn --invalidation-paths)"
    read -r -a paths <<<"$listed"
    where=(--region "$REGION")
  fi
  step "CloudFront invalidation of ${paths[*]}"
  local id
  if $DRY_RUN; then
    run aws cloudfront create-invalidation "${where[@]}" --distribution-id "$DISTRIBUTION_ID" --paths "${paths[@]}"
    return 0
  fi
  id="$(aws cloudfront create-invalidation "${where[@]}" --distribution-id "$DISTRIBUTION_ID" --paths "${paths[@]}" \
    --query Invalidation.Id --output text)" || die "the invalidation of ${paths[*]} failed; the upload is done: rerun aws cloudfront create-invalidation ${where[*]} --distribution-id $DISTRIBUTION_ID --paths ${paths[*]}"
  log "invalidation $id (aws cloudfront wait invalidation-completed ${where[*]:+${where[*]} }--distribution-id $DISTRIBUTION_ID --id $id)"
}

main() {
  parse_args "$@"
  check_prerequisites
  check_region
  $WEB_ONLY || read_stack
  check_web_acl
  console_door
  rollback_target
  build_backend
  package_release
  deploy_console_door
  deploy_backend
  read_outputs
  build_web
  keep_web
  fetch_web
  upload_web
  [ -z "$DIST" ] || invalidate_index
  remember_release
  if $DRY_RUN && [ ${#MISSING[@]} -gt 0 ]; then die "dry run: missing ${MISSING[*]}"; fi
  step "done: $PUBLIC_URL"
}

main "$@"
