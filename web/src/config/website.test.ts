import { expect, it } from 'vitest';
import { websiteFor } from './website';

it('links the Chinese site when the path contains zh, else the English one', () => {
  expect(__CIAM_WEBSITE_ZH__).not.toBe(__CIAM_WEBSITE_EN__);
  for (const p of ['/zh-CN/passport/signin', '/zh-CN/personal/secure', '/x/zh']) expect(websiteFor(p)).toBe(__CIAM_WEBSITE_ZH__);
  for (const p of ['/en-US/passport/signin', '/signout', '/']) expect(websiteFor(p)).toBe(__CIAM_WEBSITE_EN__);
});
