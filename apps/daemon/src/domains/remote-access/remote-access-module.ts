import { contribute, defineDomain } from '../../config/domain-module.js';
import { RULESET_PARTS } from '../network/network-public.js';
import { remoteAccessContributor } from './remote-access-ruleset.js';

/**
 * Remote access (spec §2 /system/romotevisit, §7 sysconf/remoteaccess): the console on a WAN
 * port for the allowed source addresses (spec §5), through the one ruleset. The entity is
 * `cutsAccess`, so a save waits for the administrator's confirmation and reverts without it.
 */
export const remoteAccessModule = defineDomain({
  name: 'remote-access',
  pages: ['romotevisit'],
  contributions: (settings) => [contribute(RULESET_PARTS, remoteAccessContributor(settings.port))],
});
