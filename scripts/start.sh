#!/usr/bin/env bash
# Runs the product locally: `ciam serve` on the embedded SQLite store (data in ./.ciam), serving
# the API at /ciam/v1 and the web app (when built) on http://127.0.0.1:8080. Extra arguments go
# to `ciam serve`, e.g. `npm start -- --addr 0.0.0.0:9000`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f web/package.json ]; then
  npm run build --workspace web
fi
exec cargo run --locked --profile serve -p ciam-local --bin ciam -- serve "$@"
