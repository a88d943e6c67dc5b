import { formatVoucherCode, type VoucherBatch } from '@portico/schema';

/** One card of the printable sheet. */
export interface VoucherCard {
  serial: number;
  /** Grouped in fours for reading aloud and typing. */
  printed: string;
  /** What the QR code carries: the bare code, as the portal accepts it. */
  qrText: string;
}

/** The cards of a freshly created batch, in serial order (codes come in serial order). */
export function voucherCards(codes: readonly string[]): VoucherCard[] {
  return codes.map((code, index) => ({ serial: index + 1, printed: formatVoucherCode(code), qrText: code }));
}

/** QR codes are drawn only when the device has the `qrcode` capability (spec, general facts). */
export function sheetShowsQr(capabilities: readonly string[]): boolean {
  return capabilities.includes('qrcode');
}

export interface SheetTerms {
  validity: number;
  unitKey: string;
  /** null = unlimited devices. */
  devices: number | null;
}

export function sheetTerms(batch: Pick<VoucherBatch, 'validity' | 'unit' | 'usernum'>): SheetTerms {
  return { validity: batch.validity, unitKey: `hotspotPlan.option.effectunit.${batch.unit}`, devices: batch.usernum === 0 ? null : batch.usernum };
}
