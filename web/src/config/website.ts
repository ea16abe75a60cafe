// The company website (spec §9: "website link depends on whether the path contains zh"): the
// Chinese site when the current path contains "zh", else the English one. Both are set at build
// time (CIAM_WEBSITE_ZH, CIAM_WEBSITE_EN; docs/api.md).
export function websiteFor(pathname: string): string {
  return pathname.includes('zh') ? __CIAM_WEBSITE_ZH__ : __CIAM_WEBSITE_EN__;
}
