/** Where a reminded client stands: its next web request shows the notice, it was shown, or it was taken back. */
export const REMINDER_STATES = ['awaiting', 'shown', 'withdrawn'] as const;
export type ReminderState = (typeof REMINDER_STATES)[number];

/** One reminded client as GET /api/hotspot/reminders lists it (daemon hotspot-admin-routes). */
export interface ReminderListEntry {
  ipaddr: string;
  username: string;
  /** Epoch milliseconds of the device clock. */
  remindedAt: number;
  state: ReminderState;
}

export interface ReminderList {
  items: ReminderListEntry[];
  total: number;
}

export const REMINDER_LIST_PATH = 'hotspot/reminders';
/** The list is re-read this often while shown. */
export const REMINDER_REFRESH_MS = 30_000;

/** The translation key of a state; one this console does not know reads as unknown. */
export function reminderStateKey(state: string): string {
  return (REMINDER_STATES as readonly string[]).includes(state) ? `hotspotReminderList.state.${state}` : 'hotspotReminderList.state.unknown';
}
