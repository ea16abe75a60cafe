//! The `ciam-fakes` binary prints its port and serves every platform there.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[tokio::test]
async fn the_binary_prints_its_port_and_serves() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ciam-fakes"))
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("ciam-fakes starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("a line");
    let port: u16 = line.trim().parse().expect("the first line is the port");
    assert_ne!(port, 0);
    let http = reqwest::Client::new();
    for prefix in ["wechat", "wecom", "dingtalk", "feishu", "lark"] {
        let r = http
            .get(format!("http://127.0.0.1:{port}/{prefix}/_control/calls"))
            .send()
            .await
            .expect("served");
        assert_eq!(r.status(), 200, "{prefix}");
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_wrong_argument_is_refused_with_status_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_ciam-fakes"))
        .args(["--port", "seventy"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a port"));
}
