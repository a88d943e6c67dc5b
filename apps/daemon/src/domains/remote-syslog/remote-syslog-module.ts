import { defineDomain } from '../../config/domain-module.js';
import { registerRemoteSyslog, type RemoteSyslogDeps } from './remote-syslog-service.js';

/**
 * Remote logging (spec §1, §7 sysconf/syslog): RFC 5424 over UDP, TCP or TLS, sent by the
 * daemon itself (the image carries no syslog daemon). Its settings sit on the network
 * parameters page.
 */
export const remoteSyslogModule = defineDomain({
  name: 'remote-syslog',
  pages: ['networkparameter'],
  register: (app, ctx, deps: RemoteSyslogDeps | undefined) => registerRemoteSyslog(app, ctx, deps),
});
