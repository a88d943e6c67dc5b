import type { Settings } from '../../settings.js';
import { contribute, defineDomain } from '../../config/domain-module.js';
import { RULESET_PARTS } from '../network/network-public.js';
import { qosBindings } from './qos-bindings.js';
import { qosDomain, qosRulesetContributor } from './qos-domain.js';
import { qosLinuxActivation, qosOpenwrtActivation } from './qos-activation.js';
import { QOS_FORMATS } from './qos-formats.js';
import { qosDownloadShaping } from './qos-kernel.js';
import type { QosDownloadShaping } from './qos-plan.js';
import { registerQosRoutes } from './qos-routes.js';

// One answer per daemon (per settings): the ruleset part and the tc script must agree on it.
const downloadSides = new WeakMap<object, () => QosDownloadShaping>();

/** Where download is shaped, asked on the first render, not at start: the kernel probe may scan its symbol list. */
function downloadSide(settings: Settings): () => QosDownloadShaping {
  let side = downloadSides.get(settings);
  if (!side) {
    let known: QosDownloadShaping | undefined;
    side = () => (known ??= qosDownloadShaping(settings.qosDownload, settings.driver));
    downloadSides.set(settings, side);
  }
  return side;
}

/** Smart QoS: classification in the one ruleset, shaping as one tc script after the network. */
export const qosModule = defineDomain({
  name: 'qos',
  pages: ['smartqos'],
  formats: QOS_FORMATS,
  contributions: (settings) => [contribute(RULESET_PARTS, qosRulesetContributor(downloadSide(settings)))],
  configDomains: ({ settings }) => [qosDomain(settings, downloadSide(settings))],
  activation: { linux: qosLinuxActivation, openwrt: qosOpenwrtActivation },
  bindings: (ctx) => qosBindings(ctx.db),
  register: (app, ctx) => registerQosRoutes(app, ctx),
});
