import type { HealthEvent } from '@portico/schema';
import { signal } from '../../config/domain-signals.js';

/**
 * What other domains may follow of the health domain: each security event once it is recorded
 * (a finding of a kind `sysconf/events` records, first seen on an interface).
 */
export const SECURITY_EVENT_RECORDED = signal<HealthEvent>('health.security-event');
