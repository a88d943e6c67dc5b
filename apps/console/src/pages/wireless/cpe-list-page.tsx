import { DeviceListView } from './device-list-view.js';

/** /cpemanage/cpelist: outdoor bridges, adopted or waiting. */
export default function CpeListPage() {
  return <DeviceListView kind="cpe" />;
}
