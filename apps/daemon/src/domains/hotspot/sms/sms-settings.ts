import { hotspotSms, type HotspotSms } from '@portico/schema';
import type { AppContext } from '../../../app-context.js';
import { configRowSingleton } from '../../../config/entity-store.js';
import type { SmsCredentials } from './sms-providers.js';

/** The stored SMS gateway settings (the singleton's row), with its defaults. */
export function smsSettings(ctx: Pick<AppContext, 'db' | 'now'>): HotspotSms {
  return hotspotSms.schema.parse(configRowSingleton(ctx.db, hotspotSms.name, ctx.now).read() ?? {});
}

/** The credentials of the selected platform, as its sender takes them. */
export function smsCredentials(settings: HotspotSms): SmsCredentials {
  switch (settings.platform) {
    case 'aliyun':
      return { platform: 'aliyun', accessKeyId: settings.accessKeyId, accessKeySecret: settings.accessKeySecret, signName: settings.signName };
    case 'tencent':
      return { platform: 'tencent', secretId: settings.secretId, secretKey: settings.secretKey, smsSdkAppId: settings.smsSdkAppId, signName: settings.signName };
    case 'twilio':
      return { platform: 'twilio', accountSid: settings.accountSid, authToken: settings.authToken, from: settings.from, ...(settings.countryCode ? { countryCode: settings.countryCode } : {}) };
  }
}
