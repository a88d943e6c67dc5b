/** Connection tracking limits and timeouts (spec §9). Timeouts are in seconds. */

export const CONNECTION_LIMITS = {
  /** Largest system-wide connection count the dashboard shows. */
  systemMaxShown: 1024,
  /** Default connections per IP. */
  perIp: 3000,
  /** Default TCP sessions per IP; 0 means no limit. */
  tcp: 0,
  /** Default UDP sessions per IP. */
  udp: 800,
} as const;

export const TCP_TIMEOUTS = {
  generic: 300,
  established: 1800,
  synSent: 120,
  synReceived: 60,
  finWait: 120,
  timeWait: 120,
  close: 10,
  closeWait: 60,
  lastAck: 30,
} as const;

export const UDP_TIMEOUTS = {
  unreplied: 60,
  assured: 180,
} as const;
