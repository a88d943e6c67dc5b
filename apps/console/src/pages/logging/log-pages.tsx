import { LogViewer } from './log-viewer.js';

/** The pages of Logging (spec §2 /logging): one log each, all through the one viewer. */
export const SystemLogPage = () => <LogViewer name="system" />;
export const PortLogPage = () => <LogViewer name="port" />;
export const SmsLogPage = () => <LogViewer name="sms" />;
export const AuthLogPage = () => <LogViewer name="auth" />;
export const WirelessLogPage = () => <LogViewer name="wireless" />;
/** The security log: dnsmasq's DHCP log. */
export const SecurityLogPage = () => <LogViewer name="dhcp" />;
