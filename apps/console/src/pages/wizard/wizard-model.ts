/**
 * The first-run wizard's model: it edits the existing network interface rows (GET/POST
 * /api/network) and changes the admin password (POST /api/changepwd); it has no data of its own.
 */
export const WIZARD_STEPS = ['wan', 'lan', 'wifi', 'time', 'password'] as const;
export type WizardStep = (typeof WIZARD_STEPS)[number];

export const WAN_PROTOS = ['dhcp', 'static', 'pppoe'] as const;
export type WanProto = (typeof WAN_PROTOS)[number];

/** An interface row as the entity route answers it (only what the wizard touches is typed). */
export interface InterfaceRow {
  id: string;
  ifname: string;
  role: string;
  proto: string;
  ipaddr: string;
  netmask: string;
  gateway: string;
  dns: string[];
  pppoe_username: string;
  [field: string]: unknown;
}

export interface WanForm {
  proto: WanProto;
  ipaddr: string;
  netmask: string;
  gateway: string;
  dns: string;
  pppoe_username: string;
  pppoe_password: string;
}

export function wanFormOf(row: InterfaceRow): WanForm {
  return {
    proto: (WAN_PROTOS as readonly string[]).includes(row.proto) ? (row.proto as WanProto) : 'dhcp',
    ipaddr: row.ipaddr ?? '',
    netmask: row.netmask ?? '',
    gateway: row.gateway ?? '',
    dns: (row.dns ?? []).join(' '),
    pppoe_username: row.pppoe_username ?? '',
    pppoe_password: '',
  };
}

/**
 * The row to send: the stored row with the wizard's fields over it, so nothing the wizard does
 * not show changes. Fields of another connection type are left as stored (the daemon ignores
 * them), an empty PPPoE password keeps the stored one.
 */
export function wanUpdate(row: InterfaceRow, form: WanForm): Record<string, unknown> {
  const { pppoe_password: password, ...rest } = row;
  void password;
  const out: Record<string, unknown> = { ...rest, proto: form.proto, dns: form.dns.split(/[\s,]+/).filter(Boolean) };
  if (form.proto === 'static') Object.assign(out, { ipaddr: form.ipaddr.trim(), netmask: form.netmask.trim(), gateway: form.gateway.trim() });
  if (form.proto === 'pppoe') {
    out.pppoe_username = form.pppoe_username.trim();
    if (form.pppoe_password !== '') out.pppoe_password = form.pppoe_password;
  }
  return out;
}

export function lanUpdate(row: InterfaceRow, ipaddr: string, netmask: string): Record<string, unknown> {
  const { pppoe_password: password, ...rest } = row;
  void password;
  return { ...rest, ipaddr: ipaddr.trim(), netmask: netmask.trim() };
}
