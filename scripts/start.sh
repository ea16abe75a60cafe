#!/usr/bin/env bash
# Runs the product locally: `ciam serve` on the embedded SQLite store (data in ./.ciam), serving
# the API at /ciam/v1 and the web app (when built) on http://localhost:8080. Extra arguments go
# to `ciam serve`, e.g. `npm start -- --addr 0.0.0.0:9000`. CIAM_BRAND_DIR=<folder with brand.json>
# brands the web app (web/scripts/brand.mjs).
#
# The public URL is http://localhost:<port> unless --public-url (or CIAM_PUBLIC_URL) is given:
# passkeys need a host name (a browser refuses an IP address as RP ID), so `ciam serve`'s own
# default, http://<listen address>, would turn them off. It is also the OpenID Connect issuer.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f web/package.json ]; then
  npm run build --workspace web
  # The operator's brand (README "Configuration"): written into the fresh build; a refused accent stops here.
  if [ -n "${CIAM_BRAND_DIR:-}" ]; then
    node web/scripts/brand.mjs --brand "$CIAM_BRAND_DIR" --dist web/dist
  fi
fi
addr="${CIAM_ADDR:-127.0.0.1:8080}"
public="${CIAM_PUBLIC_URL:-}"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --addr) addr="${args[i + 1]:-$addr}" ;;
    --addr=*) addr="${args[i]#--addr=}" ;;
    --public-url | --public-url=*) public=given ;;
  esac
done
extra=()
if [ -z "$public" ]; then
  extra=(--public-url "http://localhost:${addr##*:}")
fi
exec cargo run --locked --profile serve -p ciam-local --bin ciam -- serve "${extra[@]}" "$@"
