import { TopologyView } from './topology-view.js';

/** /wirelessmanage/topology: the gateway and its access points. */
export default function ApTopologyPage() {
  return <TopologyView kind="ap" />;
}
