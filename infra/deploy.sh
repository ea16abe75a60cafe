#!/usr/bin/env bash
# Deploys Ciam to AWS: the backend (sam build through scripts/build-lambda.sh, which also checks
# every function's zip size, then sam deploy), then the web app (vite build, the upload of
# infra/upload_web.py, a CloudFront invalidation of /index.html). docs/operations.md
# §7 explains each step and §8 the first deploy.
#
# Usage: infra/deploy.sh [options] [-- extra arguments for sam deploy]
#   --stack-name NAME            default: $CIAM_STACK_NAME, else samconfig.toml's, else "ciam"
#   --region REGION              default: $AWS_REGION, $AWS_DEFAULT_REGION, samconfig.toml's,
#                                else `aws configure get region`
#   --parameter-overrides 'K=V ...'  passed to sam deploy (repeatable); parameters not given
#                                keep their previous value on an existing stack
#   --guided                     first deploy: `sam deploy --guided` asks for every parameter and
#                                saves the answers in samconfig.toml for the next runs
#   --web-only                   skip sam build and sam deploy (a release of the web app alone)
#   --dry-run                    check the prerequisites and print every command that would change
#                                something instead of running it (read-only calls still run)
#   -h, --help
# Environment: AWS_PROFILE and the usual AWS variables; CIAM_PYTHON (default .venv/bin/python).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK_NAME="${CIAM_STACK_NAME:-}"
REGION=""
GUIDED=false
WEB_ONLY=false
DRY_RUN=false
OVERRIDES=()
SAM_EXTRA=()
MISSING=()
SAM=""
PY=""
WEB_BUCKET=""
DISTRIBUTION_ID=""
PUBLIC_URL=""

log() { printf '%s\n' "$*"; }
step() { printf '\n== %s\n' "$*"; }
die() { printf 'deploy: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

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
      --dry-run) DRY_RUN=true; shift ;;
      -h | --help) usage; exit 0 ;;
      --) shift; SAM_EXTRA=("$@"); break ;;
      *) die "unknown option $1 (infra/deploy.sh --help)" ;;
    esac
  done
  if $GUIDED && $WEB_ONLY; then die "--guided deploys the stack; it cannot go with --web-only"; fi
}

# samconfig.toml (written by --guided) gives the stack name and region when none was passed.
samconfig() {
  [ -f "$ROOT/samconfig.toml" ] || return 0
  "$PY" - "$ROOT/samconfig.toml" "$1" <<'EOF' 2>/dev/null || true
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    print(tomllib.load(f).get("default", {}).get("deploy", {}).get("parameters", {}).get(sys.argv[2], ""))
EOF
}

check_prerequisites() {
  step "prerequisites"
  PY="${CIAM_PYTHON:-$ROOT/.venv/bin/python}"
  if [ ! -x "$PY" ]; then PY="$(command -v python3 || true)"; fi
  [ -n "$PY" ] || die "python3 not found (the upload tool is Python; bash scripts/setup.sh makes .venv)"
  "$PY" -c 'import boto3' 2>/dev/null || need boto3 "boto3 not importable by $PY: bash scripts/setup.sh (or pip install boto3)"

  command -v aws >/dev/null || need aws "aws CLI not found: install AWS CLI v2 (reads the stack outputs, invalidates CloudFront)"
  if ! $WEB_ONLY; then
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
  command -v npm >/dev/null || need npm "npm not found: install Node.js 20+ to build the web app"
  [ -d "$ROOT/node_modules" ] || need node_modules "node_modules missing: bash scripts/setup.sh (or npm ci)"

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

build_backend() {
  $WEB_ONLY && return 0
  step "sam build (npm run build:lambda: bootstrap and passkeys, each zip at most 4 MB)"
  run bash "$ROOT/scripts/build-lambda.sh"
}

deploy_backend() {
  $WEB_ONLY && return 0
  step "sam deploy (stack $STACK_NAME)"
  local args=(deploy --stack-name "$STACK_NAME" --region "$REGION")
  if $GUIDED; then
    args+=(--guided)
  elif [ ! -f "$ROOT/samconfig.toml" ]; then
    # Without a samconfig.toml nothing else says where the code goes or what may be created.
    args+=(--resolve-s3 --capabilities CAPABILITY_IAM)
  fi
  # An unchanged stack is not an error: the web app may still have changed.
  $GUIDED || args+=(--no-confirm-changeset --no-fail-on-empty-changeset)
  [ ${#OVERRIDES[@]} -eq 0 ] || args+=(--parameter-overrides "${OVERRIDES[@]}")
  (cd "$ROOT" && run "$SAM" "${args[@]}" "${SAM_EXTRA[@]}")
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
}

build_web() {
  step "web build (vite -> web/dist)"
  (cd "$ROOT" && run npm run build --workspace web)
  $DRY_RUN || [ -f "$ROOT/web/dist/index.html" ] || die "the web build left no web/dist/index.html"
}

upload_web() {
  step "upload web/dist to s3://$WEB_BUCKET (assets first, index.html last, old files marked stale)"
  local cmd=("$PY" "$ROOT/infra/upload_web.py" --bucket "$WEB_BUCKET" --region "$REGION" --dist "$ROOT/web/dist")
  run "${cmd[@]}"
  if $DRY_RUN && [ -f "$ROOT/web/dist/index.html" ]; then "${cmd[@]}" --dry-run | sed 's/^/  /'; fi
}

invalidate_index() {
  step "CloudFront invalidation of /index.html"
  local id
  if $DRY_RUN; then
    run aws cloudfront create-invalidation --distribution-id "$DISTRIBUTION_ID" --paths /index.html
    return 0
  fi
  id="$(aws cloudfront create-invalidation --distribution-id "$DISTRIBUTION_ID" --paths /index.html \
    --query Invalidation.Id --output text)" || die "the invalidation of /index.html failed; the upload is done: rerun aws cloudfront create-invalidation --distribution-id $DISTRIBUTION_ID --paths /index.html"
  log "invalidation $id (aws cloudfront wait invalidation-completed --distribution-id $DISTRIBUTION_ID --id $id)"
}

main() {
  parse_args "$@"
  check_prerequisites
  build_backend
  deploy_backend
  read_outputs
  build_web
  upload_web
  invalidate_index
  if $DRY_RUN && [ ${#MISSING[@]} -gt 0 ]; then die "dry run: missing ${MISSING[*]}"; fi
  step "done: $PUBLIC_URL"
}

main "$@"
