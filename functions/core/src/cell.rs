//! Which cell this deployment is, and where its sibling is (docs/multi-region.md §14). Cells
//! share code, never data: nothing here asks the other cell anything. A cell only knows the
//! other's address, so that it can send people there: a mainland phone's sign-up (phones are
//! mainland-only, spec §5) from the global cell, and, in the web app, anyone whose sign-in
//! failed.

use crate::validate::Identity;
use crate::{Error, Message, Reason, Result};

/// The two cells of docs/multi-region.md §5.1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cell {
    /// The international service (the `aws` partition).
    #[default]
    Global,
    /// The mainland China service (the `aws-cn` partition).
    Cn,
}

impl Cell {
    /// `global` or `cn`: `CIAM_CELL`, `ciam serve --cell`, the `ciam-cell` meta tag.
    pub fn as_str(self) -> &'static str {
        match self {
            Cell::Global => "global",
            Cell::Cn => "cn",
        }
    }

    pub fn parse(s: &str) -> Option<Cell> {
        match s {
            "global" => Some(Cell::Global),
            "cn" => Some(Cell::Cn),
            _ => None,
        }
    }
}

/// The other cell's origin (`https://id.example.cn`): http or https, a host, nothing after it.
/// It is written into a page's `<meta>` and a JSON answer, so only a plain origin passes.
pub fn other_origin(raw: &str) -> std::result::Result<String, String> {
    let url = url::Url::parse(raw.trim()).map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(url.scheme(), "https" | "http") {
        return Err("must be an http or https URL".into());
    }
    if url.host_str().is_none()
        || !url.username().is_empty()
        || url.password().is_some()
        || url.path() != "/"
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return Err(
            "must be an origin only: scheme, host and port, no path, query or credentials".into(),
        );
    }
    Ok(url.origin().ascii_serialization())
}

/// Refuses a sign-up (its code request and the registration itself) with a phone number in the
/// global cell when a mainland cell exists: the number belongs there (phones are mainland-only),
/// and refusing before the code request means no text is paid for. The answer depends on the
/// kind of identity only, never on whether an account exists, so it tells nothing about anyone
/// (docs/multi-region.md §14). Without a sibling (one cell only), or in the cn cell, nothing
/// changes.
pub fn sign_up_here(config: &crate::Config, id: &Identity) -> Result<()> {
    match (&config.other_cell, config.cell, id) {
        (Some(other), Cell::Global, Identity::Phone(_)) => Err(Error {
            message: Some(Message::OtherCell(other.clone())),
            ..Error::new(Reason::PHONE_MAINLAND_SERVICE_ONLY)
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    fn config(cell: Cell, other: Option<&str>) -> Config {
        Config {
            cell,
            other_cell: other.map(str::to_owned),
            ..Config::default()
        }
    }

    fn id(s: &str) -> Identity {
        Identity::parse(s).expect("an identity")
    }

    #[test]
    fn a_phone_sign_up_in_the_global_cell_with_a_mainland_sibling_is_sent_there() {
        let c = config(Cell::Global, Some("https://id.example.cn"));
        let e = sign_up_here(&c, &id("13800138000")).expect_err("refused");
        assert_eq!(e.reason, Reason::PHONE_MAINLAND_SERVICE_ONLY);
        assert_eq!(
            e.message,
            Some(Message::OtherCell("https://id.example.cn".into()))
        );
        assert!(sign_up_here(&c, &id("a@example.com")).is_ok());
    }

    #[test]
    fn one_cell_alone_and_the_mainland_cell_take_phones() {
        for c in [
            config(Cell::Global, None),
            config(Cell::Cn, Some("https://id.example.com")),
            config(Cell::Cn, None),
        ] {
            assert!(sign_up_here(&c, &id("13800138000")).is_ok(), "{c:?}");
        }
    }

    #[test]
    fn the_other_cell_is_an_origin_and_nothing_more() {
        assert_eq!(
            other_origin("https://id.example.cn/").as_deref(),
            Ok("https://id.example.cn")
        );
        assert_eq!(
            other_origin("http://127.0.0.1:8081").as_deref(),
            Ok("http://127.0.0.1:8081")
        );
        for bad in [
            "id.example.cn",
            "ftp://id.example.cn",
            "https://id.example.cn/zh-CN",
            "https://id.example.cn/?a=1",
            "https://u:p@id.example.cn",
            "https://id.example.cn/#x",
            "javascript:alert(1)",
            "https://id.example.cn\"><script>",
        ] {
            assert!(other_origin(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cells_are_named_as_the_flags_and_tags_name_them() {
        for c in [Cell::Global, Cell::Cn] {
            assert_eq!(Cell::parse(c.as_str()), Some(c));
        }
        assert_eq!(Cell::parse("China"), None);
    }
}
