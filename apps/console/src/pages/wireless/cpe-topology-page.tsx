import { TopologyView } from './topology-view.js';

/** /cpemanage/cpetopology: bases and the receivers linked to them. */
export default function CpeTopologyPage() {
  return <TopologyView kind="cpe" />;
}
