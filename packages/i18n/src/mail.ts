import enUS from './locales/en-US/emailMessage.json';
import zhCN from './locales/zh-CN/emailMessage.json';
import zhTW from './locales/zh-TW/emailMessage.json';

/**
 * Only the texts of the e-mail notices the daemon sends: the daemon composes them in the
 * recipient's language without carrying the console's texts.
 */
export const mailResources = { 'en-US': enUS, 'zh-CN': zhCN, 'zh-TW': zhTW } as const;
export type MailTexts = (typeof mailResources)['en-US'];
