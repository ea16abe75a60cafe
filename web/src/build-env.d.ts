// Values fixed at build time by vite's `define` (vite.config.ts; documented in docs/api.md).
// Used directly in conditions, so a build with a flag off drops the code it guards.

/** "release." + the package version (spec §9), e.g. "release.0.1.0". */
declare const __CIAM_VERSION__: string;
/** false when built with CIAM_ERROR_REPORTS=off: no report code is shipped at all. */
declare const __CIAM_ERROR_REPORTS__: boolean;
/** true only when built with CIAM_TEST_HOOKS=on (end-to-end tests): adds a route that throws. */
declare const __CIAM_TEST_HOOKS__: boolean;
/** The company website for paths that contain "zh" (CIAM_WEBSITE_ZH). */
declare const __CIAM_WEBSITE_ZH__: string;
/** The company website for every other path (CIAM_WEBSITE_EN). */
declare const __CIAM_WEBSITE_EN__: string;
/** Whom a suspended customer contacts, in the Chinese UI (CIAM_SUPPORT_ZH; default the website). */
declare const __CIAM_SUPPORT_ZH__: string;
/** Whom a suspended customer contacts, in the English UI (CIAM_SUPPORT_EN; default the website). */
declare const __CIAM_SUPPORT_EN__: string;
