//! Local protocol servers of the four Chinese platforms Ciam federates with (issue 33,
//! docs/federation-design.md §5.3): WeChat, WeCom, DingTalk and Feishu/Lark. Dev only: the API
//! tests start them in process ([`spawn`]), `ciam serve` and the Chromium tests run the
//! `ciam-fakes` binary. Never a dependency of a Lambda or of a shipped binary.
//!
//! One loopback listener serves all four, each under its own prefix, and each platform's paths
//! stay as documented below it, so an adapter's base setting is the only thing a test changes:
//!
//! | prefix | platform hosts it stands for |
//! |---|---|
//! | `/wechat` | open.weixin.qq.com, api.weixin.qq.com |
//! | `/wecom` | login.work.weixin.qq.com, open.weixin.qq.com, qyapi.weixin.qq.com |
//! | `/dingtalk` | login.dingtalk.com, api.dingtalk.com |
//! | `/feishu` | accounts.feishu.cn, open.feishu.cn |
//! | `/lark` | accounts.larksuite.com, open.larksuite.com (the Feishu fake, second name) |
//!
//! Each prefix also serves the control API (`/_control/next-user`, `down`, `slow`,
//! `invalidate-token`, `clock`, `calls`); [`Fakes`] offers the same controls in process.

pub mod common;
pub mod dingtalk;
pub mod dns;
pub mod feishu;
pub mod mock;
pub mod wechat;
pub mod wecom;

pub use common::{Person, Shared, State};

use axum::Router;
use tokio::net::TcpListener;

/// The four platforms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    Wechat,
    Wecom,
    Dingtalk,
    Feishu,
}

impl Platform {
    pub const ALL: [Platform; 4] = [
        Platform::Wechat,
        Platform::Wecom,
        Platform::Dingtalk,
        Platform::Feishu,
    ];
    /// The path prefix of the platform on the shared listener.
    pub fn prefix(self) -> &'static str {
        match self {
            Platform::Wechat => "/wechat",
            Platform::Wecom => "/wecom",
            Platform::Dingtalk => "/dingtalk",
            Platform::Feishu => "/feishu",
        }
    }
}

/// The hosts a `redirect_uri` may name unless [`Fakes::with_domains`] says otherwise: Ciam's
/// callback on loopback, as `ciam serve` and the tests run it.
pub const DEFAULT_DOMAINS: &[&str] = &["127.0.0.1", "localhost"];

/// The running (or, before [`Fakes::serve`], configured) fakes.
#[derive(Clone)]
pub struct Fakes {
    /// `http://127.0.0.1:<port>` once bound; empty before.
    pub base_url: String,
    states: [Shared; 4],
}

impl Fakes {
    /// Fakes accepting redirects to `domains` only (the registered callback domain).
    pub fn with_domains(domains: &[&str]) -> Fakes {
        let domains: Vec<String> = domains.iter().map(|d| (*d).to_owned()).collect();
        Fakes {
            base_url: String::new(),
            states: [(); 4].map(|_| State::new(&domains)),
        }
    }

    /// The platform's fake: its person, clock, counters and switches.
    pub fn state(&self, p: Platform) -> &Shared {
        &self.states[p as usize]
    }

    /// The platform's base URL (every documented path goes below it).
    pub fn url(&self, p: Platform) -> String {
        format!("{}{}", self.base_url, p.prefix())
    }

    /// The Feishu fake under its Lark name.
    pub fn lark_url(&self) -> String {
        format!("{}/lark", self.base_url)
    }

    /// The one router: every platform under its prefix, Lark as a second Feishu prefix.
    pub fn router(&self) -> Router {
        let feishu = feishu::router(self.state(Platform::Feishu).clone());
        Router::new()
            .nest(
                "/wechat",
                wechat::router(self.state(Platform::Wechat).clone()),
            )
            .nest("/wecom", wecom::router(self.state(Platform::Wecom).clone()))
            .nest(
                "/dingtalk",
                dingtalk::router(self.state(Platform::Dingtalk).clone()),
            )
            .nest("/feishu", feishu.clone())
            .nest("/lark", feishu)
            .nest("/mock", mock::router())
    }

    /// Binds `listener`'s address into `base_url` and serves on a background task (it ends
    /// with the runtime).
    pub fn serve(mut self, listener: TcpListener) -> std::io::Result<Fakes> {
        self.base_url = format!("http://{}", listener.local_addr()?);
        let app = self.router();
        tokio::spawn(async move {
            // A failed accept loop ends the fake; the test then fails on a refused connection.
            let _ = axum::serve(listener, app).await;
        });
        Ok(self)
    }
}

/// All four fakes on one loopback port chosen by the system, in process.
pub async fn spawn() -> std::io::Result<Fakes> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    Fakes::with_domains(DEFAULT_DOMAINS).serve(listener)
}
