#!/usr/bin/env bash
# npm run build:lambda: builds every function exactly as infra/deploy.sh does (it calls this
# script): `sam build` of template.yaml, where cargo-lambda compiles and links each of the two
# binaries (arm64, release profile) once, `bootstrap`, `passkeys` (the WebAuthn ceremonies,
# docs/passkeys-design.md §1.4), `webhooks`, `hook` and `decoder` (the avatar decoder), and SAM
# copies each into its functions' .aws-sam/build/<Function>/. Then zips each of those folders the
# way `sam package` does, prints each function's zip size, and fails when one is over 4 MB
# (docs/operations.md §10), or when a crate split off into a binary of its own is linked where it
# must not be (the panic-location strings of a linked crate name its source path, even
# stripped): `grep -c webauthn_rp` (the WebAuthn relying party) must be 0 on `bootstrap` and not
# 0 on `passkeys`; `grep -c zune-jpeg` (the image decoders) 0 on `bootstrap` and not 0 on
# `decoder`.
#
# Usage: scripts/build-lambda.sh [extra arguments for sam build, e.g. --cached]
# Needs `bash scripts/setup.sh` once (sam, cargo-lambda and zig in .venv; the Rust target
# aarch64-unknown-linux-gnu). Environment: CIAM_ZIP_LIMIT (bytes, default 4000000),
# CIAM_PYTHON (default .venv/bin/python), CARGO_TARGET_DIR (default ./target), CIAM_TEMPLATE (the
# stack to build, default template.yaml; infra/deploy.sh --cell cn gives infra/cn.yaml).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
LIMIT="${CIAM_ZIP_LIMIT:-4000000}"
TEMPLATE="${CIAM_TEMPLATE:-$ROOT/template.yaml}"
die() { printf 'build:lambda: error: %s\n' "$*" >&2; exit 1; }

# The tools setup.sh put in .venv come first: sam runs cargo-lambda from PATH, and cargo-lambda
# runs zig from PATH.
[ -d "$ROOT/.venv/bin" ] && export PATH="$ROOT/.venv/bin:$PATH"
PY="${CIAM_PYTHON:-$ROOT/.venv/bin/python}"
[ -x "$PY" ] || PY="$(command -v python3 || true)"
missing=()
for tool in sam cargo cargo-lambda zig "$PY"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] || die "missing ${missing[*]}: run bash scripts/setup.sh (and install Rust with rustup)"
if command -v rustup >/dev/null 2>&1 && ! rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-linux-gnu; then
  die "the Rust target aarch64-unknown-linux-gnu is missing: bash scripts/setup.sh (or rustup target add aarch64-unknown-linux-gnu)"
fi

# The crates first, exactly as Cargo.lock pins them (sam build itself never passes --locked).
printf '== cargo fetch --locked (aarch64-unknown-linux-gnu)\n'
cargo fetch --locked --target aarch64-unknown-linux-gnu

printf '\n== sam build (cargo-lambda: each binary linked once)\n'
started=$(date +%s)
sam build --template-file "$TEMPLATE" "$@"
printf 'sam build: %s s\n' "$(($(date +%s) - started))"

printf '\n== function packages (zipped as sam package does; limit %s bytes)\n' "$LIMIT"
"$PY" - "$ROOT/.aws-sam/build" "$LIMIT" "$TEMPLATE" <<'EOF'
import contextlib, hashlib, os, re, sys, tempfile, zipfile

build, limit, template = sys.argv[1], int(sys.argv[2]), sys.argv[3]
# The crates split off into a binary of their own, as `grep -c` finds them in a linked binary
# (their source paths in panic locations): the WebAuthn relying party, only in `passkeys`
# (docs/passkeys-design.md §1.4); the image decoders, only in `decoder` (docs/operations.md §10).
# Each must be absent from `bootstrap` and present in its own binary.
CRATES = {"webauthn_rp": "passkeys", "zune-jpeg": "decoder"}


def binaries(path):
    """Function logical id -> its Metadata BuildProperties.Binary in template.yaml and in the
    nested stacks it names (`AWS::Serverless::Application` with a local `Location`: the
    console's, infra/console.yaml)."""
    text = open(path).read()
    try:
        from samcli.yamlhelper import yaml_parse

        resources = (yaml_parse(text) or {}).get("Resources") or {}
        found = {
            name: r.get("Metadata", {}).get("BuildProperties", {}).get("Binary", "bootstrap")
            for name, r in resources.items()
            if r.get("Type") == "AWS::Serverless::Function"
        }
        nested = [
            r.get("Properties", {}).get("Location")
            for r in resources.values()
            if r.get("Type") == "AWS::Serverless::Application"
        ]
    except ImportError:
        found = {}
        for m in re.finditer(r"^  (\w+):\n    Type: AWS::Serverless::Function\n(.*?)(?=^  \w+:\n|\Z)", text, re.S | re.M):
            b = re.search(r"^        Binary: (\S+)", m.group(2), re.M)
            found[m.group(1)] = b.group(1) if b else "bootstrap"
        nested = re.findall(r"^      Location: (\S+)$", text, re.M)
    for location in nested:
        if isinstance(location, str) and not location.startswith(("s3://", "https://")):
            found.update(binaries(os.path.join(os.path.dirname(path), location)))
    return found


def sam_zip(folder, target):
    """The zip `sam package` uploads for a folder (samcli.lib.package.utils.make_zip: deflated,
    the files' Unix modes, no timestamps, so equal folders give equal zips and one upload)."""
    try:
        from samcli.lib.package.utils import make_zip
        return make_zip(target, folder)
    except ImportError:
        name = target + ".zip"
        with open(name, "wb") as f, contextlib.closing(zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED)) as zf:
            for root, _, files in os.walk(folder, followlinks=True):
                for file in files:
                    path = os.path.join(root, file)
                    info = zipfile.ZipInfo(os.path.relpath(path, folder))
                    info.create_system = 3
                    info.external_attr = os.stat(path).st_mode << 16
                    with open(path, "rb") as data:
                        zf.writestr(info, data.read(), compress_type=zipfile.ZIP_DEFLATED)
        return name


def digest(folder):
    h = hashlib.sha256()
    for root, dirs, files in os.walk(folder, followlinks=True):
        dirs.sort()
        for file in sorted(files):
            path = os.path.join(root, file)
            h.update(os.path.relpath(path, folder).encode() + b"\0")
            with open(path, "rb") as data:
                h.update(data.read())
    return h.hexdigest()


def size(folder):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(folder) for f in fs)


def crate_counts(folder):
    """`grep -c <crate>` of the folder's executable `bootstrap` (the name Lambda runs), for each
    crate of CRATES (None without an executable)."""
    path = os.path.join(folder, "bootstrap")
    if not os.path.isfile(path):
        return {crate: None for crate in CRATES}
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    return {crate: sum(1 for line in lines if crate.encode() in line) for crate in CRATES}


def function_folders(build):
    """The function folders `sam build` made: build/<Function>/, and for a nested stack (a folder
    with its own template.yaml) build/<Stack>/<Function>/."""
    out = []
    for d in sorted(os.listdir(build)) if os.path.isdir(build) else []:
        path = os.path.join(build, d)
        if not os.path.isdir(path):
            continue
        if os.path.isfile(os.path.join(path, "template.yaml")):
            out += [os.path.join(d, f) for f in function_folders(path)]
        else:
            out.append(d)
    return out


folders = function_folders(build)
if not folders:
    sys.exit(f"build:lambda: no function folders in {build}")
binary_of = binaries(template)
zips = {}  # folder digest -> (zip size, {crate: lines}): equal folders make equal zips
rows = []
with tempfile.TemporaryDirectory() as tmp:
    for d in folders:
        folder = os.path.join(build, d)
        key = digest(folder)
        if key not in zips:
            zips[key] = (os.path.getsize(sam_zip(folder, os.path.join(tmp, key))), crate_counts(folder))
        rows.append((d, binary_of.get(os.path.basename(d), "?"), size(folder), zips[key][0], zips[key][1], key[:12]))
width = max(len(r[0]) for r in rows)
print(f"{'function':<{width}}  {'binary':<9}  {'unzipped':>10}  {'zip':>10}  artifact")
for d, binary, raw, z, _, key in rows:
    flag = "  OVER" if z > limit else ""
    print(f"{d:<{width}}  {binary:<9}  {raw:>10}  {z:>10}  {key}{flag}")
largest = max(r[3] for r in rows)
print(
    f"{len(rows)} functions, {len(zips)} distinct artifact(s); largest zip {largest} bytes "
    f"({largest / 1e6:.2f} MB, {largest / 2**20:.2f} MiB); limit {limit} bytes"
)
failures = []
WHY = {
    "webauthn_rp": "code reachable from its main names CEREMONY_ROUTES or ciam_core::passkey::rp "
    "(docs/passkeys-design.md §1.4)",
    "zune-jpeg": "code reachable from its main names the image decoder or "
    "ciam_core::avatar::InProcessDecoder (docs/operations.md §10)",
}
USE = {"webauthn_rp": "it would verify no ceremony", "zune-jpeg": "it would decode no JPEG"}
for binary in sorted({r[1] for r in rows}):
    mine = [r for r in rows if r[1] == binary]
    sizes = sorted({r[3] for r in mine})
    counts = {
        crate: sorted({r[4][crate] for r in mine}, key=lambda c: -1 if c is None else c) for crate in CRATES
    }
    greps = ", ".join(f"grep -c {crate}: {', '.join(map(str, c))}" for crate, c in counts.items())
    print(
        f"{binary}: {len(mine)} function(s), {len({r[5] for r in mine})} artifact(s), "
        f"zip {', '.join(map(str, sizes))} bytes, {greps}"
    )
    for crate, own in CRATES.items():
        if binary == "bootstrap" and any(c for c in counts[crate]):
            failures.append(f"bootstrap links {crate}: {WHY[crate]}")
        if binary == own and not all(counts[crate]):
            failures.append(f"{own} does not link {crate}: {USE[crate]}")
unknown = [r[0] for r in rows if r[1] not in ("bootstrap", "passkeys", "webhooks", "hook", "decoder")]
if unknown:
    failures.append(f"no known Binary in {template} for: {', '.join(unknown)}")
over = [r[0] for r in rows if r[3] > limit]
if over:
    failures.append(f"{len(over)} function zip(s) over {limit} bytes: {', '.join(over)}")
if failures:
    sys.exit("\n".join(f"build:lambda: {f}" for f in failures))
EOF
