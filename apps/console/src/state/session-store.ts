import { create } from 'zustand';
import { roleOf, type RoleName } from '@portico/schema';
import { toLanguage, type Language } from '@portico/i18n/load';

/** The signed-in account as the daemon describes it (GET /api/islogin, POST /api/login). */
export interface SessionInfo {
  username: string;
  privilege: number;
  role: RoleName;
  /** Sent back in the CSRF header on every write. */
  csrf: string;
  mustChangePassword: boolean;
  lang: Language | null;
  /** Capability tokens of the device (`vlan`, `hidden_language`, ...). */
  capabilities: string[];
}

export type SessionStatus = 'unknown' | 'signedIn' | 'signedOut';

interface SessionState extends SessionInfo {
  status: SessionStatus;
  signIn(info: SessionInfo): void;
  update(changes: Partial<SessionInfo>): void;
  signOut(): void;
}

const EMPTY: SessionInfo = {
  username: '',
  privilege: 0,
  role: 'guest',
  csrf: '',
  mustChangePassword: false,
  lang: null,
  capabilities: [],
};

export const useSessionStore = create<SessionState>()((set) => ({
  ...EMPTY,
  status: 'unknown',
  signIn: (info) => set({ ...info, status: 'signedIn' }),
  update: (changes) => set(changes),
  signOut: () => set({ ...EMPTY, status: 'signedOut' }),
}));

/** The capability string is space separated on the device; a list is accepted as well. */
export function parseCapabilities(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '');
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  return [];
}

/**
 * Reads a session reply. Fields the daemon leaves out take safe values: no privilege means
 * the least one, and the role follows the privilege when it is not given.
 */
export function parseSession(data: unknown): SessionInfo {
  const record = (data && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  const privilege = typeof record.privilege === 'number' ? record.privilege : Number(record.privilege ?? NaN);
  const knownPrivilege = Number.isInteger(privilege) ? privilege : 2;
  const role = record.role === 'manager' || record.role === 'voucherAdmin' || record.role === 'guest'
    ? record.role
    : roleOf(knownPrivilege);
  return {
    username: typeof record.username === 'string' ? record.username : '',
    privilege: knownPrivilege,
    role,
    csrf: typeof record.csrf === 'string' ? record.csrf : '',
    mustChangePassword: record.mustChangePassword === true,
    lang: toLanguage(typeof record.lang === 'string' ? record.lang : null),
    capabilities: parseCapabilities(record.capabilities),
  };
}
