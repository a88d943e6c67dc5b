/**
 * The hotspot engine's own view of its configuration and state (DESIGN §6). The configuration
 * entities (service zones, billing plans, local users, lists) are read into these shapes by
 * hotspot-config.ts, so the engine depends on nothing but these few fields.
 */

export type PortalMethod = 'voucher' | 'local' | 'password' | 'onekey' | 'ldap' | 'sms' | ExternalPortal;

/**
 * Zone auth models whose accounts live on a server outside the device (spec §3 authmodel): the
 * portal asks for a username and password, an OutsideAuthenticator (hotspot-engine.ts) checks
 * them. Sessions they admit carry the model as their kind.
 */
export type OutsideAuthModel = 'radius' | 'ldap';
export const OUTSIDE_AUTH_MODELS: readonly OutsideAuthModel[] = ['radius', 'ldap'];

/**
 * Zone auth models the built-in portal serves besides `webportal`: the outside ones and SMS
 * code (sms/: a code the portal sent to the phone, checked by HotspotCredentials.verifySmsCode).
 */
export type PortalAuthModel = OutsideAuthModel | 'sms';
export const PORTAL_AUTH_MODELS: readonly PortalAuthModel[] = [...OUTSIDE_AUTH_MODELS, 'sms'];

/**
 * The one portal method of a zone of each outside model: `local` (the username-and-password
 * form) for RADIUS, the LDAP form for LDAP, the phone-and-code form for SMS.
 */
export const PORTAL_METHOD_OF: Readonly<Record<PortalAuthModel, PortalMethod>> = { radius: 'local', ldap: 'ldap', sms: 'sms' };

/**
 * Sign-in on an outside portal server the captive client is sent to (wifidog/); the gateway
 * admits the client on that server's word (cmcc/: after checking the credentials it relays),
 * never through the built-in portal's form.
 */
export type ExternalPortal = 'wifidog' | 'cmcc' | 'rusystem' | 'cloudportal' | 'weixin' | 'social';

export interface HotspotZone {
  name: string;
  /** Network interface names (LAN side) whose clients go through the portal. */
  interfaces: string[];
  welcome: string;
  contact: string;
  copyright: string;
  logintext: string;
  chargetext: string;
  tos: string;
  /** The terms' own heading; absent or empty: the portal's default one. */
  tosTitle?: string;
  methods: PortalMethod[];
  /** Pre-shared password of the `password` method. */
  password: string;
  redirectUrl: string;
  /** Session length of logins without a plan (password, one-key); 0 = until idle. */
  sessionSeconds: number;
  /** A client without traffic for this long is logged out. */
  idleSeconds: number;
  /** Plan applied to password and one-key logins. */
  plan: string;
  /** Set when the zone's clients sign in on that outside portal instead (methods is then empty). */
  externalPortal?: ExternalPortal;
  /** The zone's auth model: absent or 'webportal' for the device's own methods. */
  authModel?: 'webportal' | PortalAuthModel;
}

export interface HotspotPlan {
  name: string;
  /** Bytes of traffic (up + down); 0 = unlimited. */
  flowBytes: number;
  /** Seconds of validity; 0 = unlimited. */
  seconds: number;
  /** Kbit/s; 0 = unlimited. */
  upKbps: number;
  downKbps: number;
  /** When its users are reminded that it runs out; null or absent: never. */
  remind?: ReminderThresholds | null;
}

/** A client is reminded once this little time or traffic is left. */
export interface ReminderThresholds {
  seconds: number;
  bytes: number;
}

export type ReminderTemplate = 'default' | 'simple';

/** The remote expiration reminder (hotspotReminder with the accounting thresholds). */
export interface ReminderSettings {
  enabled: boolean;
  /** Stored only: sending needs the SMS gateway. */
  sms: boolean;
  /** The reminder page returns to the page the client asked for by itself. */
  refresh: boolean;
  /** Where the client is sent to renew; '' = none. */
  url: string;
  /** A client is reminded at most once per this many seconds. */
  intervalSeconds: number;
  /** TCP port whose next request of a client to remind lands on the reminder. */
  port: number;
  content: string;
  template: ReminderTemplate;
  /** Thresholds of accounts without a plan (the accounting settings). */
  accountThresholds: ReminderThresholds;
}

export interface ListEntry {
  type: 'mac' | 'ip' | 'url';
  value: string;
}

export interface HotspotConfig {
  zones: HotspotZone[];
  plans: HotspotPlan[];
  whiteList: ListEntry[];
  blackList: ListEntry[];
  /** Seconds between counter reads (accounting interval). */
  accountingSeconds: number;
  /** Absent: nobody is reminded. */
  reminder?: ReminderSettings;
}

/** What a login proved: whom it is for and what it may use. */
export interface Grant {
  kind: PortalMethod | OutsideAuthModel;
  /** Account name or voucher code: a returning device is re-bound by it. */
  account?: string;
  plan?: string;
  /** Absolute end of validity (epoch ms), or null for none beyond the plan. */
  expiresAt: number | null;
  /** Bytes still allowed, or null for unlimited. */
  flowBytes: number | null;
  /** Devices online at once for this account; 0 = unlimited. */
  usernum: number;
  upKbps: number;
  downKbps: number;
  /** Idle time-out of this login (an outside server's answer); absent: the zone's. */
  idleSeconds?: number;
  /**
   * The limits are this session's alone: the outside server keeps the account's totals, so
   * the device does not carry usage over from earlier logins of the account.
   */
  sessionLimits?: boolean;
  /** What the outside authenticator keeps with the session (saved with it; text only). */
  outside?: Record<string, string>;
}

/** One authorised client. Byte counts are totals over the whole session. */
export interface HotspotSession {
  mac: string;
  ip: string;
  zone: string;
  kind: Grant['kind'];
  account?: string;
  plan?: string;
  startedAt: number;
  expiresAt: number | null;
  /** Bytes allowed for this session, or null for unlimited. */
  flowLimit: number | null;
  bytesUp: number;
  bytesDown: number;
  /** Last time traffic was seen (epoch ms). */
  activeAt: number;
  upKbps: number;
  downKbps: number;
  idleSeconds: number;
  /** Grant.outside of the login that admitted it. */
  outside?: Record<string, string>;
}

export type LoginFailure =
  | 'portal.error.code'
  | 'portal.error.password'
  | 'portal.error.userOrPassword'
  | 'portal.error.needPassword'
  | 'portal.error.expired'
  | 'portal.error.quota'
  | 'portal.error.onlineLimit'
  | 'portal.error.blocked'
  | 'portal.error.notConfigured'
  | 'portal.error.system'
  | 'portal.error.tooMany'
  | 'portal.error.authServerTimeout'
  | 'portal.error.authServerUnreachable'
  | 'portal.error.connectFailed'
  | 'portal.error.authFailed'
  | 'portal.error.socialNetwork'
  | 'portal.error.socialAuth';

export const LOGIN_ERRORS = {
  code: 'portal.error.code',
  password: 'portal.error.password',
  userOrPassword: 'portal.error.userOrPassword',
  /** A CHAP sign-in of an account that has no sealed password (made before): set it again. */
  needPassword: 'portal.error.needPassword',
  expired: 'portal.error.expired',
  /** The account's data allowance is used up. */
  quota: 'portal.error.quota',
  onlineLimit: 'portal.error.onlineLimit',
  /** The device is on the black list. */
  blocked: 'portal.error.blocked',
  /** No service zone with the built-in portal covers the client's address. */
  notConfigured: 'portal.error.notConfigured',
  system: 'portal.error.system',
  tooMany: 'portal.error.tooMany',
  /** An outside authentication server (RADIUS) did not answer in time. */
  authServerTimeout: 'portal.error.authServerTimeout',
  /** An outside authentication server (RADIUS) could not be reached. */
  authServerUnreachable: 'portal.error.authServerUnreachable',
  /** The directory (LDAP) that checks the account could not be reached. */
  connectFailed: 'portal.error.connectFailed',
  /** An outside portal server sent the client back without a sign-in the gateway could confirm. */
  authFailed: 'portal.error.authFailed',
  /** The social login provider could not be reached or answered nonsense. */
  socialNetwork: 'portal.error.socialNetwork',
  /** The social login was refused: consent denied, bad state, a token that does not verify. */
  socialAuth: 'portal.error.socialAuth',
} as const satisfies Record<string, LoginFailure>;

/**
 * Where a browser goes when its return from an outside sign-in (WiFiDog, cloud portal, WeChat,
 * social login, RU system) admits nothing: the built-in portal page, relative to the portal
 * listener the return reached, with the failure's message key for the page to show.
 */
export function portalErrorLocation(key: LoginFailure): string {
  return `/auth/portal?error=${encodeURIComponent(key)}`;
}
