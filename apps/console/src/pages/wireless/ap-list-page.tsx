import { DeviceListView } from './device-list-view.js';

/** /wirelessmanage/aplist: access points, adopted or waiting. */
export default function ApListPage() {
  return <DeviceListView kind="ap" />;
}
