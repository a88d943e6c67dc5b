/** Device-level facts (spec §9). */

/** A device straight from the factory answers on an address in this network. */
export const FACTORY_NETWORK = '192.168.11.0/24';

/** A newly bound device shows up on the cloud platform after about this many seconds. */
export const CLOUD_BINDING_DELAY_SECONDS = 180;

/** Packet-loss counters reset every day at this local time. */
export const PACKET_LOSS_RESET_TIME = { hour: 0, minute: 0 } as const;
