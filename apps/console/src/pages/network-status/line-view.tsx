import { Badge } from '@mantine/core';
import type { TFunction } from 'i18next';
import { formatBytes, formatSpeed, type LineStatus } from '@portico/schema';

/** The figures of a line as table cells, shared by the overview and the details page. */
export function onlineBadge(line: LineStatus, t: TFunction) {
  return (
    <Badge color={line.online ? 'teal' : 'red'} variant="light" data-testid="line-online" data-online={line.online ? 'true' : 'false'}>
      {t(line.online ? 'netStatus.line.online' : 'netStatus.line.offline')}
    </Badge>
  );
}

export function latencyText(line: Pick<LineStatus, 'latency'>, t: TFunction): string {
  return line.latency === null ? '—' : t('netStatus.line.latencyValue', { value: line.latency });
}

export function lineFigures(line: LineStatus, t: TFunction): { label: string; value: string }[] {
  return [
    { label: t('netStatus.line.interface'), value: line.interface },
    { label: t('netStatus.line.link'), value: t(`netStatus.monitor.${line.link}`) },
    { label: t('netStatus.line.ipaddr'), value: line.ipaddr },
    { label: t('netStatus.line.gateway'), value: line.gateway },
    { label: t('netStatus.line.table'), value: line.table > 0 ? String(line.table) : '—' },
    { label: t('netStatus.line.latency'), value: latencyText(line, t) },
    { label: t('netStatus.line.loss'), value: t('netStatus.line.lossValue', { value: line.loss }) },
    { label: t('netStatus.line.rxRate'), value: formatSpeed(line.rx_rate) },
    { label: t('netStatus.line.txRate'), value: formatSpeed(line.tx_rate) },
    { label: t('netStatus.line.rxBytes'), value: formatBytes(line.rx_bytes) },
    { label: t('netStatus.line.txBytes'), value: formatBytes(line.tx_bytes) },
  ];
}
