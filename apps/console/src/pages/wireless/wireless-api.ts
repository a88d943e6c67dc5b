import type { ApiReply, DeviceCommand, DeviceCommandResult, DeviceKind, ListPage } from '@portico/schema';
import { apiGet, apiPost } from '../../api/api-client.js';

/** The wireless controller's calls (spec §7 `ac/*`). */

export const DEVICE_LIST_PATH: Record<DeviceKind, string> = { ap: 'ac/aplist', cpe: 'ac/cpelist' };
export const DEVICE_COMMAND_PATH: Record<DeviceKind, string> = { ap: 'ac/apcmd', cpe: 'ac/cpecmd' };
export const STATION_LIST_PATH: Record<DeviceKind, string> = { ap: 'ac/stalist', cpe: 'ac/cpestalist' };
/** Where a device of each kind is bound: AP groups, CPE profiles. */
const BINDING_PATH: Record<DeviceKind, string> = { ap: 'ac/apgroup', cpe: 'ac/cpe' };

export interface BindingChoice {
  id: string;
  name: string;
}

/** The groups (APs) or profiles (CPEs) a device can be bound to. */
export async function bindingChoices(kind: DeviceKind): Promise<BindingChoice[]> {
  // Without paging parameters a list read answers every row.
  const page = await apiGet<ListPage<{ id: string; name: string }>>(BINDING_PATH[kind]);
  return page.items.map((row) => ({ id: row.id, name: row.name }));
}

export function deviceCommand(
  kind: DeviceKind,
  action: DeviceCommand,
  serials: readonly string[],
  extra: { group?: string; name?: string } = {},
): Promise<ApiReply<DeviceCommandResult>> {
  return apiPost<DeviceCommandResult>(DEVICE_COMMAND_PATH[kind], { action, serials: [...serials], ...extra });
}

/**
 * What /ac/devicecert answers: the AP's new key (none when the device sent its own request),
 * its certificate and the device CA, in PEM.
 */
export interface DeviceCertificateBundle {
  serial: string;
  key?: string;
  certificate: string;
  ca: string;
}

/** Issues a device certificate for a serial (the key is in this answer only), or signs the device's request. */
export function issueDeviceCertificate(serial: string, csr?: string): Promise<ApiReply<DeviceCertificateBundle>> {
  return apiPost<DeviceCertificateBundle>('ac/devicecert', { serial, ...(csr ? { csr } : {}) });
}

/** A bit rate as the station table shows it: Mbit/s with one decimal. */
export function mbpsText(kbps: number | null): string {
  return kbps === null ? '-' : (kbps / 1000).toFixed(1);
}
