import { defineDomain } from '../../config/domain-module.js';
import { wirelessBindings } from './wireless-bindings.js';

/**
 * The wireless controller: AP groups with their SSIDs and radio profiles, the MAC filter and
 * CPE profiles as entities; adopted devices speak the uCentral protocol to the controller.
 */
export const wirelessModule = defineDomain({
  name: 'wireless',
  bindings: (ctx) => wirelessBindings(ctx.db, () => 0),
});
