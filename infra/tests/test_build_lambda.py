"""scripts/build-lambda.sh (`npm run build:lambda`, the build step of infra/deploy.sh) with a stub
`sam` whose build leaves function folders as SAM does (three binaries: `bootstrap`, the
WebAuthn ceremonies' `passkeys` and the avatar decoder's `decoder`): every folder is zipped the
way `sam package` zips it, the sizes are printed, equal folders are one artifact, and a zip over
the limit fails the build, as does the WebAuthn crate in `bootstrap` or its absence from
`passkeys`, and the image decoders in `bootstrap` or their absence from `decoder`. The real
build is measured in docs/operations.md §10."""

import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "build-lambda.sh", tmp_path / "scripts" / "build-lambda.sh")
    # A and B run bootstrap, C the ceremony binary passkeys, E the image decoder's binary decoder
    # (as in template.yaml).
    (tmp_path / "template.yaml").write_text(
        "Resources:\n"
        + "".join(
            f"  {name}:\n"
            "    Type: AWS::Serverless::Function\n"
            "    Metadata:\n"
            "      BuildMethod: rust-cargolambda\n"
            "      BuildProperties:\n"
            f"        Binary: {binary}\n"
            "    Properties:\n"
            "      Description: x\n"
            for name, binary in (
                ("AFunction", "bootstrap"),
                ("BFunction", "bootstrap"),
                ("CFunction", "passkeys"),
                ("EFunction", "decoder"),
            )
        )
        # A nested stack (as the console's, infra/console.yaml) whose function D runs bootstrap.
        + "  DStack:\n"
        "    Type: AWS::Serverless::Application\n"
        "    Properties:\n"
        "      Location: infra/d.yaml\n"
    )
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "d.yaml").write_text(
        "Resources:\n"
        "  DFunction:\n"
        "    Type: AWS::Serverless::Function\n"
        "    Metadata:\n"
        "      BuildMethod: rust-cargolambda\n"
        "      BuildProperties:\n"
        "        Binary: bootstrap\n"
        "    Properties:\n"
        "      Description: x\n"
    )
    stubs = tmp_path / "stub-bin"
    stubs.mkdir()
    # `sam build` copies one bootstrap into A and B and the passkeys binary (its file is named
    # bootstrap too) into C, which names the WebAuthn crate, and the decoder binary into E, which
    # names the image crate. STUB_ODD makes C and E small, STUB_LEAK puts the WebAuthn crate into
    # A and B, STUB_NO_CRATE leaves it out of C; STUB_IMAGE_LEAK puts the image crate into A and
    # B, STUB_NO_IMAGE leaves it out of E.
    (stubs / "sam").write_text(
        "#!/usr/bin/env bash\n"
        'echo "sam $*" >> "$STUB_LOG"\n'
        "for f in AFunction BFunction CFunction EFunction; do mkdir -p .aws-sam/build/$f; done\n"
        'head -c "$STUB_SIZE" /dev/urandom | tr -d "\\n" > .aws-sam/build/AFunction/bootstrap\n'
        'if [ -n "${STUB_LEAK:-}" ]; then printf "\\n/r/webauthn_rp-0.3.0/src/lib.rs\\n" >> .aws-sam/build/AFunction/bootstrap; fi\n'
        'if [ -n "${STUB_IMAGE_LEAK:-}" ]; then printf "\\n/r/zune-jpeg-0.4.0/src/lib.rs\\n" >> .aws-sam/build/AFunction/bootstrap; fi\n'
        "cp .aws-sam/build/AFunction/bootstrap .aws-sam/build/BFunction/bootstrap\n"
        # SAM builds a nested stack's functions under build/<Stack>/, beside its template.
        "mkdir -p .aws-sam/build/DStack/DFunction && touch .aws-sam/build/DStack/template.yaml\n"
        "cp .aws-sam/build/AFunction/bootstrap .aws-sam/build/DStack/DFunction/bootstrap\n"
        'crate="\\n/r/webauthn_rp-0.3.0/src/lib.rs\\n"; [ -n "${STUB_NO_CRATE:-}" ] && crate=""\n'
        'if [ -n "${STUB_ODD:-}" ]; then printf "odd$crate" > .aws-sam/build/CFunction/bootstrap;\n'
        'else { head -c "$STUB_SIZE" /dev/urandom | tr -d "\\n"; printf "$crate"; } > .aws-sam/build/CFunction/bootstrap; fi\n'
        'image="\\n/r/zune-jpeg-0.4.0/src/lib.rs\\n"; [ -n "${STUB_NO_IMAGE:-}" ] && image=""\n'
        'if [ -n "${STUB_ODD:-}" ]; then printf "odd$image" > .aws-sam/build/EFunction/bootstrap;\n'
        'else { head -c "$STUB_SIZE" /dev/urandom | tr -d "\\n"; printf "$image"; } > .aws-sam/build/EFunction/bootstrap; fi\n'
    )
    (stubs / "cargo").write_text('#!/usr/bin/env bash\necho "cargo $*" >> "$STUB_LOG"\n')
    for name in ("cargo-lambda", "zig"):
        (stubs / name).write_text("#!/usr/bin/env bash\ntrue\n")
    for p in stubs.iterdir():
        p.chmod(0o755)
    return tmp_path


def build(repo, *args, **env):
    log = repo / "calls.log"
    done = subprocess.run(
        ["bash", str(repo / "scripts" / "build-lambda.sh"), *args],
        env={
            "PATH": f"{repo / 'stub-bin'}:/usr/bin:/bin",
            "HOME": str(repo),
            "STUB_LOG": str(log),
            "STUB_SIZE": "1000",
            "CIAM_PYTHON": sys.executable,
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done, log.read_text().splitlines() if log.exists() else []


def test_every_function_zip_is_measured_and_equal_folders_are_one_artifact(repo):
    done, calls = build(repo, "--cached")
    assert done.returncode == 0, done.stderr + done.stdout
    assert calls == [
        "cargo fetch --locked --target aarch64-unknown-linux-gnu",
        f"sam build --template-file {repo}/template.yaml --cached",
    ]
    lines = done.stdout.splitlines()
    for f, binary in (
        ("AFunction", "bootstrap"),
        ("BFunction", "bootstrap"),
        ("CFunction", "passkeys"),
        ("DStack/DFunction", "bootstrap"),
        ("EFunction", "decoder"),
    ):
        row = next(line for line in lines if line.startswith(f + " "))
        assert row.split()[1] == binary, row
        unzipped, zipped = (int(v) for v in row.split()[2:4])
        assert unzipped >= 900 and zipped > 900, row  # random bytes do not compress
    assert "5 functions, 3 distinct artifact(s)" in done.stdout
    for binary, functions, greps in (
        ("bootstrap", 3, "grep -c webauthn_rp: 0, grep -c zune-jpeg: 0"),
        ("passkeys", 1, "grep -c webauthn_rp: 1, grep -c zune-jpeg: 0"),
        ("decoder", 1, "grep -c webauthn_rp: 0, grep -c zune-jpeg: 1"),
    ):
        assert any(
            line.startswith(f"{binary}: {functions} function(s), 1 artifact(s), zip ") and line.endswith(greps)
            for line in lines
        ), done.stdout


def test_the_zip_is_the_one_sam_package_makes(repo, tmp_path):
    """Same bytes as samcli's make_zip of the folder (so the printed size is what is uploaded)."""
    from samcli.lib.package.utils import make_zip

    done, _ = build(repo)
    assert done.returncode == 0, done.stderr
    folder = repo / ".aws-sam" / "build" / "AFunction"
    ours = make_zip(str(tmp_path / "ours"), str(folder))
    with zipfile.ZipFile(ours) as z:
        (info,) = z.infolist()
        assert info.filename == "bootstrap"
    row = next(line for line in done.stdout.splitlines() if line.startswith("AFunction "))
    assert int(row.split()[3]) == os.path.getsize(ours)


def test_a_zip_over_the_limit_fails_and_is_named(repo):
    done, _ = build(repo, CIAM_ZIP_LIMIT="500", STUB_ODD="1")
    assert done.returncode != 0
    assert "3 function zip(s) over 500 bytes: AFunction, BFunction, DStack/DFunction" in done.stderr
    assert "5 functions, 3 distinct artifact(s)" in done.stdout


def test_the_webauthn_crate_in_bootstrap_fails_the_build(repo):
    done, _ = build(repo, STUB_LEAK="1")
    assert done.returncode != 0
    assert "bootstrap links webauthn_rp" in done.stderr, done.stderr
    assert "bootstrap: 3 function(s), 1 artifact(s)" in done.stdout


def test_a_passkeys_binary_without_the_webauthn_crate_fails_the_build(repo):
    done, _ = build(repo, STUB_NO_CRATE="1")
    assert done.returncode != 0
    assert "passkeys does not link webauthn_rp" in done.stderr, done.stderr
    assert "bootstrap links" not in done.stderr


def test_missing_tools_point_to_setup(repo):
    (repo / "stub-bin" / "cargo-lambda").unlink()
    done, calls = build(repo)
    assert done.returncode != 0
    assert "missing cargo-lambda" in done.stderr and "scripts/setup.sh" in done.stderr
    assert calls == [], "nothing is built"


def test_the_image_crates_in_bootstrap_fail_the_build(repo):
    done, _ = build(repo, STUB_IMAGE_LEAK="1")
    assert done.returncode != 0
    assert "bootstrap links zune-jpeg" in done.stderr, done.stderr
    assert "webauthn_rp" not in done.stderr


def test_a_decoder_binary_without_the_image_crates_fails_the_build(repo):
    done, _ = build(repo, STUB_NO_IMAGE="1")
    assert done.returncode != 0
    assert "decoder does not link zune-jpeg" in done.stderr, done.stderr
    assert "bootstrap links" not in done.stderr
