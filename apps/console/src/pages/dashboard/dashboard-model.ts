import { formatBytes, renderDuration, type Dashboard, type DurationPart, type TopFlow } from '@portico/schema';

/** What the dashboard shows, computed from GET /api/dashboard (spec §3 Dashboard, §4). */

export type Translate = (key: string, options?: Record<string, unknown>) => string;
export type UsageLevel = 'normal' | 'busy' | 'critical';

/** A percentage a progress bar can draw: finite and within 0–100. */
export function clampPercent(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(100, Math.max(0, value));
}

/** Rounded for display: whole numbers stay whole, others keep one decimal. */
export function percentText(value: number): string {
  const p = clampPercent(value);
  return `${Number.isInteger(p) ? p : p.toFixed(1)}%`;
}

/** Thresholds where a gauge turns amber and red. */
export const BUSY_PERCENT = 70;
export const CRITICAL_PERCENT = 90;

export function usageLevel(percent: number): UsageLevel {
  const p = clampPercent(percent);
  if (p >= CRITICAL_PERCENT) return 'critical';
  if (p >= BUSY_PERCENT) return 'busy';
  return 'normal';
}

export const LEVEL_COLOR: Readonly<Record<UsageLevel, string>> = {
  normal: 'teal',
  busy: 'yellow',
  critical: 'red',
};

/** Spec §4: the WAN is online when wanconnect is above zero. */
export function wanOnline(wanconnect: number): boolean {
  return Number.isFinite(wanconnect) && wanconnect > 0;
}

/** Connections in use as a share of the limit; no limit reads as 0%. */
export function connectionPercent(count: number, max: number): number {
  if (!Number.isFinite(count) || !Number.isFinite(max) || max <= 0) return 0;
  return clampPercent((count / max) * 100);
}

/**
 * The device's own wall-clock time. The daemon sends it with its UTC offset; the console
 * shows the device's clock, not the browser's, so the text is taken as written.
 */
export function deviceTimeText(localtime: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})/.exec(localtime);
  return match ? `${match[1]} ${match[2]}` : localtime;
}

/** Uptime as days, hours, minutes and seconds in the current language. */
export function uptimeText(seconds: number, t: Translate, language: string): string {
  return renderDuration(seconds, (unit: DurationPart, count: number) => t(`dashboard.duration.${unit}`, { count }), {
    separator: language.startsWith('zh') ? '' : ' ',
  });
}

export interface TopFlowRow {
  ip: string;
  flow: number;
  text: string;
}

/** Heaviest first; the same address twice (several sessions) is summed. */
export function topFlowRows(flows: readonly TopFlow[]): TopFlowRow[] {
  const totals = new Map<string, number>();
  for (const { ip, flow } of flows) {
    const bytes = Number.isFinite(flow) && flow > 0 ? flow : 0;
    totals.set(ip, (totals.get(ip) ?? 0) + bytes);
  }
  return [...totals]
    .map(([ip, flow]) => ({ ip, flow, text: formatBytes(flow) }))
    .sort((a, b) => b.flow - a.flow || a.ip.localeCompare(b.ip));
}

export interface Gauge {
  key: 'cpu' | 'memory' | 'disk' | 'flash' | 'connections';
  percent: number;
  level: UsageLevel;
  /** Extra text beside the percentage (memory used of total, connections of max). */
  detail?: string;
}

export function systemGauges(system: Dashboard['system'], t: Translate): Gauge[] {
  const gauge = (key: Gauge['key'], percent: number, detail?: string): Gauge => {
    const out: Gauge = { key, percent: clampPercent(percent), level: usageLevel(percent) };
    if (detail !== undefined) out.detail = detail;
    return out;
  };
  const memoryDetail =
    system.memory_total > 0
      ? t('dashboard.system.memoryUsed', { used: formatBytes(system.memory_used), total: formatBytes(system.memory_total) })
      : undefined;
  return [
    gauge('cpu', system.cpu),
    gauge('memory', system.memory, memoryDetail),
    gauge(
      'connections',
      connectionPercent(system.conn_count, system.conn_max),
      t('dashboard.system.connUsage', { count: system.conn_count, max: system.conn_max }),
    ),
    gauge('disk', system.disk),
    gauge('flash', system.flash),
  ];
}

/** The i18n key of each gauge's label. */
export const GAUGE_LABEL: Readonly<Record<Gauge['key'], string>> = {
  cpu: 'dashboard.system.cpu',
  memory: 'dashboard.system.memory',
  connections: 'dashboard.system.connections',
  disk: 'dashboard.system.disk',
  flash: 'dashboard.system.flash',
};

export const USER_COUNTS = ['online', 'preauth', 'auth', 'total'] as const;
export type UserCount = (typeof USER_COUNTS)[number];
