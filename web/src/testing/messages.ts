// Every compiled catalogue of a locale merged (core and the screen bundles), for tests that
// render screens outside their WithMessages wrapper.
import enAdmin from '../i18n/compiled/en-US.admin.json';
import enCore from '../i18n/compiled/en-US.json';
import enDocs from '../i18n/compiled/en-US.docs.json';
import enFrame from '../i18n/compiled/en-US.partner.json';
import enOrg from '../i18n/compiled/en-US.org.json';
import enPersonal from '../i18n/compiled/en-US.personal.json';
import zhAdmin from '../i18n/compiled/zh-CN.admin.json';
import zhCore from '../i18n/compiled/zh-CN.json';
import zhDocs from '../i18n/compiled/zh-CN.docs.json';
import zhFrame from '../i18n/compiled/zh-CN.partner.json';
import zhOrg from '../i18n/compiled/zh-CN.org.json';
import zhPersonal from '../i18n/compiled/zh-CN.personal.json';

export const en = { ...enCore, ...enDocs, ...enPersonal, ...enAdmin, ...enFrame, ...enOrg };
export const zh = { ...zhCore, ...zhDocs, ...zhPersonal, ...zhAdmin, ...zhFrame, ...zhOrg };
