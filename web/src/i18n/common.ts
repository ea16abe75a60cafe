// Messages used across screens. Ids are explicit; English defaults are extracted into
// messages/en-US.json by `npm run i18n:extract`; zh-CN.json carries the same ids.
import { defineMessages } from 'react-intl';

export const common = defineMessages({
  tagline: { id: 'app.tagline', defaultMessage: 'Ciam · one account for every service' },
  languageSwitch: { id: 'app.language', defaultMessage: 'Language' },
  sessionExpired: { id: 'session.expired', defaultMessage: 'Your session has expired. Please log in again' },
  chunkFailed: { id: 'chunk.failed', defaultMessage: 'Loading chunk {name} failed' },
  cssChunkFailed: { id: 'chunk.cssFailed', defaultMessage: 'Loading CSS chunk {name} failed' },
  retry: { id: 'chunk.retry', defaultMessage: 'Retry' },
  loading: { id: 'app.loading', defaultMessage: 'Loading…' },
  cookiesDisabled: { id: 'app.cookiesDisabled', defaultMessage: 'Please enable browser cookies' },
  uploadError: { id: 'app.uploadError', defaultMessage: 'Upload error, please try later' },
  unlockInvalid: { id: 'app.unlockInvalid', defaultMessage: 'Backup code invalid' },
  close: { id: 'app.close', defaultMessage: 'Close' },
  notifications: { id: 'app.notifications', defaultMessage: 'Notifications' },
  framed: { id: 'app.framed', defaultMessage: 'This page opens in its own window.' },
  openTop: { id: 'app.openTop', defaultMessage: 'Open Ciam' },
  website: { id: 'app.website', defaultMessage: 'Company website' },
  skip: { id: 'app.skip', defaultMessage: 'Skip to main content' },
});
