#!/usr/bin/env bash
# Every test of the project. Called by `npm test` (and so by CI).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

echo "== cfn-lint template.yaml"
.venv/bin/cfn-lint template.yaml

echo "== cargo test (workspace: core, both storage engines, api, lambdas, the ciam binary)"
log=$(mktemp)
cargo test --workspace --all-targets --locked 2>&1 | tee "$log"

# One closing line for the whole run.
awk '/^test result:/ { p += $4; f += $6 } END { printf "all tests: %d passed, %d failed\n", p, f }' "$log"
rm -f "$log"
