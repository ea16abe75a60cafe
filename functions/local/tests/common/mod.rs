//! What the tests that run the real binary share: `ciam serve` as a child process on a free port
//! (waited for until it answers, killed when dropped), and a solved captcha for the routes that
//! ask for one. Each test file takes what it needs; the rest is unused there, hence the allow.

#![allow(dead_code)]

use base64::Engine;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `ciam serve`; `base` is its origin (`http://127.0.0.1:<port>`).
pub struct Serve {
    pub child: Child,
    pub base: String,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `ciam serve --addr <free port> --data <data> --web-dist <none>`, quiet (`CIAM_LOG=warn`, no
/// output), then what `configure` adds or changes; answers once `GET /ciam/v1/auth/location`
/// does (30 s at most).
pub async fn serve(data: &Path, configure: impl FnOnce(&mut Command)) -> Serve {
    let port = free_port();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ciam"));
    cmd.args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--data"])
        .arg(data)
        .args(["--web-dist", "/nonexistent-web-dist"])
        .env("CIAM_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    configure(&mut cmd);
    let server = Serve {
        child: cmd.spawn().expect("ciam starts"),
        base: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if reqwest::get(format!("{}/ciam/v1/auth/location", server.base))
            .await
            .is_ok()
        {
            return server;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("ciam serve did not come up");
}

/// A captcha answer for `origin`'s current challenge, solved as the browser's worker does.
pub async fn solved_captcha(http: &reqwest::Client, origin: &str) -> String {
    let c: Value = http
        .get(format!("{origin}/ciam/v1/auth/captcha"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (challenge, salt) = (
        c["challenge"].as_str().unwrap(),
        c["salt"].as_str().unwrap(),
    );
    let number = altcha_lib_rs::solve_challenge(challenge, salt, None, c["maxnumber"].as_u64(), 0)
        .expect("solvable");
    let payload = json!({"algorithm": "SHA-256", "challenge": challenge, "number": number, "salt": salt, "signature": c["signature"]});
    base64::engine::general_purpose::STANDARD.encode(payload.to_string())
}
