//! The capturing notifier of the `TestApp`.

use super::*;

/// The capturing `Notifier`: keeps every code sent, or refuses to deliver while `failing`.
#[derive(Default)]
pub struct Outbox {
    sent: Mutex<Vec<CodeMessage>>,
    notices: Mutex<Vec<NoticeMessage>>,
    failing: AtomicBool,
    /// The provider's refusal to answer every code with (a number's own limit), while set.
    refusing: Mutex<Option<ciam_core::Reason>>,
}

impl Outbox {
    pub fn fail_deliveries(&self, fail: bool) {
        self.failing.store(fail, Ordering::SeqCst);
    }

    /// Refuses every code with `reason` (as an SMS provider's per-number limit does), or
    /// delivers again with `None`.
    pub fn refuse_with(&self, reason: Option<ciam_core::Reason>) {
        *self.refusing.lock().expect("outbox lock") = reason;
    }

    pub fn notices(&self) -> Vec<NoticeMessage> {
        self.notices.lock().expect("outbox lock").clone()
    }

    pub fn messages(&self) -> Vec<CodeMessage> {
        self.sent.lock().expect("outbox lock").clone()
    }

    /// The latest code sent to `account` for `purpose`, if any.
    pub fn last_code(&self, account: &str, purpose: &str) -> Option<String> {
        let to = Identity::parse(account).expect("a valid account");
        self.messages()
            .into_iter()
            .rev()
            .find(|m| m.to == to && m.purpose.as_str() == purpose)
            .map(|m| m.code)
    }
}

#[async_trait]
impl Notifier for Outbox {
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), SendError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(SendError::Failed("smtp relay unreachable".into()));
        }
        if let Some(reason) = *self.refusing.lock().expect("outbox lock") {
            return Err(SendError::Refused(reason));
        }
        self.sent.lock().expect("outbox lock").push(msg.clone());
        Ok(())
    }

    async fn send_notice(&self, msg: &NoticeMessage) -> Result<(), String> {
        if self.failing.load(Ordering::SeqCst) {
            return Err("smtp relay unreachable".into());
        }
        self.notices.lock().expect("outbox lock").push(msg.clone());
        Ok(())
    }
}
