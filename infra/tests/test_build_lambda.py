"""scripts/build-lambda.sh (`npm run build:lambda`, the build step of infra/deploy.sh) with a stub
`sam` whose build leaves function folders as SAM does: every folder is zipped the way `sam
package` zips it, the sizes are printed, equal folders are one artifact, and a zip over the
limit fails the build. The real build is measured in docs/operations.md §10."""

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
    (tmp_path / "template.yaml").write_text("Resources: {}\n")
    stubs = tmp_path / "stub-bin"
    stubs.mkdir()
    # `sam build` copies one bootstrap into three folders; STUB_ODD gives the third another one.
    (stubs / "sam").write_text(
        "#!/usr/bin/env bash\n"
        'echo "sam $*" >> "$STUB_LOG"\n'
        "for f in AFunction BFunction CFunction; do\n"
        "  mkdir -p .aws-sam/build/$f\n"
        '  head -c "$STUB_SIZE" /dev/urandom > .aws-sam/build/AFunction/bootstrap\n'
        "done\n"
        "cp .aws-sam/build/AFunction/bootstrap .aws-sam/build/BFunction/bootstrap\n"
        'if [ -n "${STUB_ODD:-}" ]; then printf odd > .aws-sam/build/CFunction/bootstrap;\n'
        "else cp .aws-sam/build/AFunction/bootstrap .aws-sam/build/CFunction/bootstrap; fi\n"
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
    for f in ("AFunction", "BFunction", "CFunction"):
        row = next(line for line in lines if line.startswith(f + " "))
        unzipped, zipped = (int(v) for v in row.split()[1:3])
        assert unzipped == 1000 and zipped > 1000, row  # random bytes do not compress
    assert "3 functions, 1 distinct artifact(s)" in done.stdout


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
    assert int(row.split()[2]) == os.path.getsize(ours)


def test_a_zip_over_the_limit_fails_and_is_named(repo):
    done, _ = build(repo, CIAM_ZIP_LIMIT="500", STUB_ODD="1")
    assert done.returncode != 0
    assert "2 function zip(s) over 500 bytes: AFunction, BFunction" in done.stderr
    assert "3 functions, 2 distinct artifact(s)" in done.stdout


def test_missing_tools_point_to_setup(repo):
    (repo / "stub-bin" / "cargo-lambda").unlink()
    done, calls = build(repo)
    assert done.returncode != 0
    assert "missing cargo-lambda" in done.stderr and "scripts/setup.sh" in done.stderr
    assert calls == [], "nothing is built"
