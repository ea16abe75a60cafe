#!/usr/bin/env bash
# Every test of the project. Called by `npm test` (and so by CI).
#   1. cfn-lint on template.yaml and every template under infra/; `sam validate --lint`
#   1b. the infra suite (pytest, infra/tests): the SAM transform, policies, deploy steps
#       against emulators (moto)                  -> JUnit report
#   2. cargo fmt --check; cargo test (workspace) compiled through clippy-driver, so cargo clippy
#      -D warnings in the same build, which also builds target/debug/ciam (the binary e2e serves) -> "test result:" lines
#   2b. the drift check of what ciam-gen writes: `ciam-gen --check` (template.yaml's generated
#      regions, infra/console.yaml, docs/operations.md §2, infra/routes.json, docs/openapi.json)
#   3. web message catalogues (i18n --check), the size rule on web/src (size.mjs), the generated API types' drift check (gen-api --check),
#      the type check (tsc --noEmit), ESLint (a warning fails) and unit tests (vitest, jsdom) -> vitest JSON report
#   4. web build (vite, with the manifest)
#   5. budget check (scripts/budget.mjs)
#   5b. the paint budget (web/perf: sign-in's FCP and LCP in Chromium), alone on the machine
#      after the builds                            -> TAP report
#   6. node:test suites: the budget test and the end-to-end suite (real Chromium against
#      `ciam serve`)                               -> TAP report
# Steps 1-1b and 3-5 run in two background groups beside step 2's build (the longest); step 2's
# tests then run in the background beside 2b and 6, and their results print last.
# Every step runs even when an earlier one failed, and the run ends with ONE line summing every
# test: `all tests: N passed, M failed`. The exit status is non-zero when any step failed.
# The e2e suite needs /usr/bin/chromium (setup.sh installs it when root) and target/debug/ciam;
# with CI=true a missing one fails the suite instead of skipping it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed_steps=()
started=$(date +%s)
step() { echo; echo "== $* (at $(($(date +%s) - started)) s)"; }
fail() { failed_steps+=("$1"); echo "$1" >> "$work/failed"; echo "!! step failed: $1" >&2; }

# Steps that need neither the Rust build nor each other's results run beside the cargo step (the
# longest), each group writing its own log, printed when the group is waited for: the infra group
# (Python and the template) and the web group (Node). The end-to-end suite runs last: it needs the
# ciam binary and the built web app.
group() { # group NAME FUNCTION: runs FUNCTION in the background, output to $work/NAME.log
  ( "$2" ) > "$work/$1.log" 2>&1 &
  eval "pid_$1=$!"
}
await_group() { # await_group NAME: waits for the group and prints its log
  local pid_var="pid_$1"
  wait "${!pid_var}" || true
  cat "$work/$1.log"
}

infra_group() {
  step "cfn-lint (template.yaml, infra/*.yaml; the cn stacks for cn-north-1 and cn-northwest-1) and sam validate --lint"
  .venv/bin/cfn-lint template.yaml infra/*.yaml || fail cfn-lint
  # The cn cell's stacks against the China regions' resource lists. cfn-lint's own SAM transform
  # is not enough there (it lets template.yaml's AWS::Lambda::Url pass for cn-northwest-1): the
  # stacks after samtranslator's transform in cn-north-1 are linted in infra/tests/test_template_cn.py.
  .venv/bin/cfn-lint --regions cn-north-1 cn-northwest-1 -- infra/cn.yaml infra/cn-console.yaml infra/cn-org.yaml || fail "cfn-lint (cn)"
  AWS_DEFAULT_REGION=us-east-1 SAM_CLI_TELEMETRY=0 .venv/bin/sam validate --lint -t template.yaml || fail "sam validate"

  step "infra: the transformed template, policies and deploy steps (pytest, emulators from moto)"
  # Tests marked serves_ciam need target/debug/ciam, which the cargo step is still building: they
  # run after it (below).
  .venv/bin/python -m pytest -q infra/tests -m "not serves_ciam" --junitxml="$work/pytest.xml" || fail "infra tests"
}
group infra infra_group

web_group() {
  step "web: message catalogues (extract, merge, compile; ids present in both languages)"
  npm run i18n --workspace web -- --check || fail "i18n check"

  step "web: the size rule on web/src (500 lines without a reason line; scripts/size.mjs)"
  node web/scripts/size.mjs --self-test || fail "web size rule"

  step "web: generated API types match docs/openapi.json (drift check)"
  node web/scripts/gen-api.mjs --check || fail "api types drift"

  step "web: type check (tsc --noEmit)"
  npm run typecheck --workspace web || fail "tsc"

  step "web: lint (ESLint, import boundaries between features; a warning fails)"
  npm run lint --workspace web || fail "eslint"

  step "web: unit tests (vitest, jsdom)"
  (cd web && npx vitest run --reporter=default --reporter=json --outputFile.json="$work/vitest.json") || fail "vitest"

  step "web: build"
  npm run build --workspace web || fail "web build"

  step "web: size budget (initial JS and CSS per route, gzipped)"
  node web/scripts/budget.mjs || fail "budget"
}
group web web_group

step "cargo fmt --check"
cargo fmt --all --check || fail "cargo fmt"

# Clippy without a second build: the workspace's own crates are compiled by clippy-driver, as
# `cargo clippy` does it (RUSTC_WORKSPACE_WRAPPER, lint arguments in CLIPPY_ARGS), but with code
# generation, so the one compile of the tests also applies `cargo clippy --workspace --all-targets
# -- -D warnings` (Cargo.toml [workspace.lints], clippy.toml). A lint finding fails that crate's
# build and so this step. Dependencies are compiled by plain rustc, as under cargo clippy.
step "cargo test (workspace: core, both storage engines, api, lambdas, the ciam binary), compiled through clippy -D warnings"
clippy_driver=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)
if [ -n "$clippy_driver" ]; then
  export RUSTC_WORKSPACE_WRAPPER="$clippy_driver" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
else
  fail "cargo clippy (clippy-driver not found: rustup component add clippy)"
fi
cargo test --workspace --all-targets --locked --no-run 2>&1 | tee "$work/cargo-build.log" || fail "cargo build of the tests (or a clippy finding)"
# The SMS signers' example binary the SDK comparison runs (infra/tests/test_sms_signatures.py):
# `cargo test` builds examples under the test harness, so it is built as a program here.
cargo build --locked -p ciam-notify --example sign 2>&1 | tail -n 3 || fail "cargo build of the sign example"

# The paint budget (web/perf): a timing under a 4x CPU slowdown, so it is measured while the
# machine has nothing else to do: after the builds (it serves target/debug/ciam and the built web
# app, so the web group is awaited here) and before cargo's tests start. Beside the other suites
# on a busy two-core machine its median went over the limit.
await_group web
step "web: the paint budget (sign-in's FCP and LCP in Chromium, 4x CPU, 150 ms RTT), alone on the machine"
node --test --test-concurrency=1 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$work/paint.tap" \
  web/perf/ || fail "node:test (paint budget)"

# The tests themselves run in the background, beside what follows (the infra tests that serve
# ciam, the drift check, the end-to-end suite): much of both is waiting (DynamoDB Local, the
# browser), so the machine's two cores are better shared than taken in turn. Their output is
# printed after the end-to-end suite.
( cargo test --workspace --all-targets --locked --no-fail-fast > "$work/cargo.log" 2>&1 \
    || fail "cargo test" ) &
pid_cargo_tests=$!

# The end-to-end suite serves target/debug/ciam as the cargo test step built it for ciam-local's
# own tests (CARGO_BIN_EXE_ciam). A separate `cargo build -p ciam-local` would compile the
# workspace a second time with other features (no dev-dependencies): minutes in CI for the same
# program (the test kit the tests' features add is never called by `ciam serve`).
step "the ciam binary the end-to-end suite serves (built by the cargo test step)"
if [ -x target/debug/ciam ] && [ target/debug/ciam -nt Cargo.lock ]; then
  ls -l target/debug/ciam
else
  fail "target/debug/ciam missing or older than Cargo.lock (the cargo test step did not build it)"
fi

step "infra: the tests that serve target/debug/ciam (pytest -m serves_ciam: a Python OIDC client)"
.venv/bin/python -m pytest -q infra/tests -m serves_ciam --junitxml="$work/pytest-served.xml" || fail "infra tests (serving ciam)"

step "template.yaml, infra/console.yaml, docs/operations.md §2, infra/routes.json and docs/openapi.json match the code (ciam-gen --check)"
# The binary the build made: `cargo run` would wait for the lock the running tests hold.
target/debug/ciam-gen --check || fail "route table drift (npm run gen)"

await_group infra

# Two files at a time: each file has its own `ciam serve` (fresh data folder, free port) and its
# own browser, so they share nothing; the whole suite passed at 2 under a fully loaded machine
# (1,013 s, against 1,156 s one at a time in CI), and CI's time is the budget (under 40 minutes).
step "web: node:test suites (budget test; end to end in Chromium against ciam serve), two files at a time"
node --test --test-concurrency=2 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$work/node.tap" \
  web/tests/ || fail "node:test (budget, e2e)"

step "cargo test's results (run beside the steps since the build)"
wait "$pid_cargo_tests" || true
cat "$work/cargo.log"

# Every group's failures (the background groups cannot reach this shell's array).
mapfile -t failed_steps < <(cat "$work/failed" 2>/dev/null || true)
if [ ${#failed_steps[@]} -gt 0 ]; then
  echo "failed steps: ${failed_steps[*]}" >&2
fi

# One closing line for the whole run: cargo's "test result:" lines, pytest's JUnit report,
# vitest's JSON report and the TAP summary of node:test. A vitest file that cannot load, node:test tests cancelled by a failed
# set-up, and a missing report count as failed.
node - "$work" <<'EOF'
const fs = require('fs');
const dir = process.argv[2];
const read = (f) => { try { return fs.readFileSync(`${dir}/${f}`, 'utf8'); } catch { return ''; } };
const sums = [];
{
  let p = 0, f = 0;
  for (const m of read('cargo.log').matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed/gm)) { p += +m[1]; f += +m[2]; }
  sums.push(['cargo', p, f]);
}
{
  // <testsuite name="pytest" errors=".." failures=".." skipped=".." tests=".."> in each of the two
  // reports (the infra group's, and the tests run after the cargo step)
  let p = 0, f = 0;
  for (const file of ['pytest.xml', 'pytest-served.xml']) {
    const m = read(file).match(/<testsuite [^>]*>/);
    const a = (k) => +((m?.[0].match(new RegExp(` ${k}="(\\d+)"`)) ?? [])[1] ?? 0);
    const bad = a('errors') + a('failures') + a('skipped');
    p += m ? a('tests') - bad : 0;
    f += m ? bad : 1;
  }
  sums.push(['pytest', p, f]);
}
{
  let p = 0, f = 1;
  try {
    const j = JSON.parse(read('vitest.json'));
    const unloadable = j.testResults.filter((r) => r.status === 'failed' && r.assertionResults.length === 0).length;
    p = j.numPassedTests;
    f = j.numFailedTests + unloadable;
  } catch {}
  sums.push(['vitest', p, f]);
}
for (const file of ['node.tap', 'paint.tap']) {
  const tap = read(file);
  const n = (k) => +(tap.match(new RegExp(`^# ${k} (\\d+)$`, 'm'))?.[1] ?? 0);
  sums.push([file === 'node.tap' ? 'node:test' : 'paint', n('pass'), tap ? n('fail') + n('cancelled') : 1]);
}
console.log(`(${sums.map(([k, p, f]) => `${k}: ${p} passed, ${f} failed`).join('; ')})`);
const passed = sums.reduce((a, s) => a + s[1], 0);
const failed = sums.reduce((a, s) => a + s[2], 0);
console.log(`all tests: ${passed} passed, ${failed} failed`);
EOF

[ ${#failed_steps[@]} -eq 0 ]
