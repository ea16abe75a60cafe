//! Domains no organization may claim (docs/organizations-domains.md §3): the public suffixes
//! where people register names, and the free-mail providers' domains. Both lists are exact,
//! lower-case A-labels; a single label (`com`, `cn`) is refused by the name rule itself.

/// Second-level public suffixes of the Public Suffix List's ICANN section
/// (publicsuffix.org/list/public_suffix_list.dat) for the markets Ciam serves: mainland China
/// (`// cn`: the category and province second levels), Hong Kong, Macao, Taiwan, Japan, Korea,
/// Singapore, the United Kingdom, Australia, New Zealand, India, Brazil.
pub const PUBLIC_SUFFIXES: &[&str] = &[
    // cn: categories
    "ac.cn", "com.cn", "edu.cn", "gov.cn", "mil.cn", "net.cn", "org.cn",
    // cn: provinces and regions
    "ah.cn", "bj.cn", "cq.cn", "fj.cn", "gd.cn", "gs.cn", "gx.cn", "gz.cn", "ha.cn", "hb.cn",
    "he.cn", "hi.cn", "hk.cn", "hl.cn", "hn.cn", "jl.cn", "js.cn", "jx.cn", "ln.cn", "mo.cn",
    "nm.cn", "nx.cn", "qh.cn", "sc.cn", "sd.cn", "sh.cn", "sn.cn", "sx.cn", "tj.cn", "tw.cn",
    "xj.cn", "xz.cn", "yn.cn", "zj.cn", // hk, mo, tw
    "com.hk", "edu.hk", "gov.hk", "idv.hk", "net.hk", "org.hk", "com.mo", "edu.mo", "gov.mo",
    "net.mo", "org.mo", "com.tw", "edu.tw", "gov.tw", "idv.tw", "net.tw", "org.tw",
    // jp, kr, sg
    "ac.jp", "co.jp", "ed.jp", "go.jp", "gr.jp", "lg.jp", "ne.jp", "or.jp", "ac.kr", "co.kr",
    "go.kr", "ne.kr", "or.kr", "re.kr", "com.sg", "edu.sg", "gov.sg", "net.sg", "org.sg",
    // uk, au, nz, in, br
    "ac.uk", "co.uk", "gov.uk", "ltd.uk", "me.uk", "net.uk", "org.uk", "plc.uk", "com.au", "edu.au",
    "gov.au", "net.au", "org.au", "co.nz", "net.nz", "org.nz", "co.in", "firm.in", "gen.in",
    "ind.in", "net.in", "org.in", "com.br", "net.br", "org.br",
];

/// Free-mail providers' domains, from each provider's own sign-up page: mainland (QQ Mail and
/// Foxmail of Tencent, NetEase 163/126/yeah, Sina, Sohu, Aliyun Mail, the carriers' 139 (China
/// Mobile), 189 (China Telecom) and wo (China Unicom)) and international (Gmail, Outlook.com,
/// Yahoo, iCloud, Proton, Yandex, GMX, Mail.ru, AOL, Zoho).
pub const FREE_MAIL: &[&str] = &[
    "qq.com",
    "vip.qq.com",
    "foxmail.com",
    "163.com",
    "126.com",
    "yeah.net",
    "vip.163.com",
    "vip.126.com",
    "188.com",
    "sina.com",
    "sina.cn",
    "vip.sina.com",
    "sohu.com",
    "aliyun.com",
    "139.com",
    "189.cn",
    "wo.cn",
    "tom.com",
    "21cn.com",
    "gmail.com",
    "googlemail.com",
    "outlook.com",
    "hotmail.com",
    "live.com",
    "msn.com",
    "yahoo.com",
    "ymail.com",
    "icloud.com",
    "me.com",
    "mac.com",
    "proton.me",
    "protonmail.com",
    "yandex.com",
    "yandex.ru",
    "gmx.com",
    "gmx.net",
    "mail.ru",
    "aol.com",
    "zoho.com",
];

/// Whether `ascii` (a normalised A-label domain) is on either list.
pub fn refused(ascii: &str) -> bool {
    PUBLIC_SUFFIXES.contains(&ascii) || FREE_MAIL.contains(&ascii)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_are_normalised_and_without_duplicates() {
        let mut all: Vec<&str> = PUBLIC_SUFFIXES.iter().chain(FREE_MAIL).copied().collect();
        for d in &all {
            assert_eq!(d.to_ascii_lowercase(), *d);
            assert!(d.contains('.'), "{d}");
        }
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a domain is listed twice");
    }
}
