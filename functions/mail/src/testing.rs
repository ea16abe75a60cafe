//! A real SMTP relay for tests (`testing` feature): `tests/smtp_relay.py` (aiosmtpd, from
//! infra/requirements-dev.txt) on a free loopback port with TLS and a certificate it makes, killed
//! on drop. A missing `.venv/bin/python` or aiosmtpd fails the test, never skips it: the relay is
//! the point of these tests (`bash scripts/setup.sh` installs both).

// Test support: a relay that cannot start is the test's failure, said as a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::config::{SmtpConfig, TlsMode};
use std::path::PathBuf;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

pub const USER: &str = "relay-user@mail.example";
pub const PASSWORD: &str = "relay-password-测试";

/// How the test relay listens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayMode {
    StartTls,
    Implicit,
    /// No TLS offered at all: a client must refuse it.
    Plain,
}

pub struct TestRelay {
    _child: tokio::process::Child,
    pub port: u16,
    /// The test CA that signed the relay's certificate (for 127.0.0.1).
    pub ca_pem: Vec<u8>,
    dir: PathBuf,
}

impl TestRelay {
    pub async fn start(mode: RelayMode) -> TestRelay {
        TestRelay::start_with(mode, false).await
    }

    /// `login_only`: the relay offers AUTH LOGIN and not PLAIN.
    pub async fn start_with(mode: RelayMode, login_only: bool) -> TestRelay {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let python = std::env::var_os("CIAM_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join("../../.venv/bin/python"));
        assert!(
            python.exists(),
            "{} is missing: run `bash scripts/setup.sh` (aiosmtpd from infra/requirements-dev.txt)",
            python.display()
        );
        let dir = std::env::temp_dir().join(format!(
            "ciam-smtp-{}",
            ciam_core::random::<8>(&ciam_core::OsEntropy)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mode_arg = match mode {
            RelayMode::StartTls => "starttls",
            RelayMode::Implicit => "implicit",
            RelayMode::Plain => "plain",
        };
        let mut cmd = tokio::process::Command::new(&python);
        cmd.arg(root.join("tests/smtp_relay.py"))
            .args(["--mode", mode_arg, "--user", USER, "--password", PASSWORD])
            .arg("--dir")
            .arg(&dir)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .kill_on_drop(true);
        if login_only {
            cmd.arg("--login-only");
        }
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("{} does not start: {e}", python.display()));
        let stdout = child.stdout.take().unwrap();
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let ready = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the test SMTP relay did not start within 30 s")
            .unwrap()
            .unwrap_or_else(|| {
                panic!(
                    "the test SMTP relay exited before listening (is aiosmtpd installed in \
                     .venv? run `bash scripts/setup.sh`)"
                )
            });
        let port = ready
            .strip_prefix("READY ")
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("the test SMTP relay said {ready:?}"));
        let ca_pem = std::fs::read(dir.join("ca.pem")).unwrap();
        TestRelay {
            _child: child,
            port,
            ca_pem,
            dir,
        }
    }

    /// A configuration for this relay: its port, its CA trusted, the test credentials.
    pub fn config(&self, tls: TlsMode, from: &str) -> SmtpConfig {
        let mut c = SmtpConfig::new("127.0.0.1", tls, from).with_credentials(USER, PASSWORD);
        c.port = self.port;
        c.extra_root_pem = Some(self.ca_pem.clone());
        c
    }

    /// The messages the relay accepted so far, oldest first (see tests/smtp_relay.py).
    pub fn received(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.dir.join("received.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The CA certificate's file (for a `--smtp-ca` flag).
    pub fn ca_path(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }
}

impl Drop for TestRelay {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
