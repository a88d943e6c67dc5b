/** Facts the maintenance page shows; the factory address is spec §9's 192.168.11.x LAN. */

export const FACTORY_ADDRESS_URL = 'http://192.168.11.1';

/** Passphrases the daemon accepts (8 to 128 characters); empty means the device key. */
export const PASSPHRASE_MIN = 8;
export const PASSPHRASE_MAX = 128;

/** The i18n key of a problem with a passphrase as typed, or null when it can be sent. */
export function passphraseProblem(value: string, required: boolean): string | null {
  if (value === '') return required ? 'maintain.passphrase.required' : null;
  if (value.length < PASSPHRASE_MIN || value.length > PASSPHRASE_MAX) return 'maintain.passphrase.length';
  return null;
}

/** The file types a backup arrives as. */
export const BACKUP_ACCEPT = '.tar.gz,.tgz,.gz,application/gzip,application/x-gzip';

/** Human size of the upload limit, in MiB. */
export function limitMiB(bytes: number): number {
  return Math.round((bytes / (1024 * 1024)) * 10) / 10;
}
