import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { apiPost } from '../../api/api-client.js';
import { useCurrentRoute, useMenuTitle } from '../../routes/current-route.js';
import { PageHeading } from '../../shell/page-heading.js';
import { showSuccessNotice } from '../../shell/notice.js';
import { formatBytes } from '@portico/schema';
import { instantText, useStatusQuery } from '../network-status/net-status-query.js';
import { AUDIT_PATHS, type AuditStatus } from './audit-api.js';
import { AuditSearch } from './audit-search.js';

const REFRESH_MS = 30_000;

/** The state of the records: on or off, the disk, what it holds and keeps; clean for writers. */
export function AuditStatusPanel() {
  const { t, i18n } = useTranslation();
  const route = useCurrentRoute();
  const { data, refresh } = useStatusQuery<AuditStatus>(AUDIT_PATHS.status, {}, REFRESH_MS);
  const canClean = route?.permission === 'modify';

  async function clean() {
    if (!window.confirm(t('behaviourAudit.status.confirmClean'))) return;
    const reply = await apiPost(AUDIT_PATHS.status, { action: 'clean' }).catch(() => null);
    if (reply?.success) {
      showSuccessNotice(t('behaviourAudit.msg.cleaned'));
      refresh();
    }
  }

  if (!data) return null;
  return (
    <Stack gap="xs" data-testid="audit-status">
      <Alert color={data.enabled && !data.refused ? 'green' : 'yellow'} variant="light">
        {data.refused ? t('behaviourAudit.status.refused') : data.enabled ? t('behaviourAudit.status.on') : t('behaviourAudit.status.off')}
      </Alert>
      <Group gap="lg">
        <Text size="sm">
          {t('behaviourAudit.field.disk')}: {data.disk === '' ? t('behaviourAudit.disk.internal') : data.disk}
          {data.total !== null && ` (${t('behaviourAudit.disk.size')} ${formatBytes(data.total)}, ${t('behaviourAudit.disk.free')} ${formatBytes(data.free ?? 0)})`}
        </Text>
        {data.retentionDays !== null && (
          <Text size="sm">
            {t('behaviourAudit.disk.retention')}: {t('behaviourAudit.disk.days', { count: data.retentionDays })}
          </Text>
        )}
        <Text size="sm" data-testid="audit-count-urls">
          {t('behaviourAudit.status.urls')}: {data.urls}
        </Text>
        <Text size="sm">
          {t('behaviourAudit.status.flows')}: {data.flows}
        </Text>
        <Text size="sm">
          {t('behaviourAudit.status.oldest')}: {data.oldest === null ? t('behaviourAudit.status.none') : instantText(data.oldest, i18n.language)}
        </Text>
        {canClean && (
          <Button size="xs" color="red" variant="default" onClick={() => void clean()} data-testid="audit-clean">
            {t('behaviourAudit.status.clean')}
          </Button>
        )}
      </Group>
    </Stack>
  );
}

/** Related pages of the audit: the exports and the settings. */
export function AuditLinks() {
  const { t } = useTranslation();
  const route = useCurrentRoute();
  const base = route?.menuPath ?? '/security/behavioraudit';
  const has = (segment: string) => route?.subRoutes.includes(`${base}/${segment}`) ?? false;
  return (
    <Group gap="xs">
      {has('urlexport') && (
        <Button component={Link} to={`${base}/urlexport`} variant="light" size="xs" data-testid="audit-link-urlexport">
          {t('behaviourAudit.search.toExport')} · {t('behaviourAudit.search.urls')}
        </Button>
      )}
      {has('ipexport') && (
        <Button component={Link} to={`${base}/ipexport`} variant="light" size="xs" data-testid="audit-link-ipexport">
          {t('behaviourAudit.search.toExport')} · {t('behaviourAudit.search.flows')}
        </Button>
      )}
      {has('config') && (
        <Button component={Link} to={`${base}/config`} variant="light" size="xs" data-testid="audit-link-config">
          {t('behaviourAudit.tab.basic')}
        </Button>
      )}
    </Group>
  );
}

/** Behaviour audit (/security/behavioraudit): the records' state and the visited URLs. */
export default function AuditPage() {
  const title = useMenuTitle();
  return (
    <Stack gap="md" data-testid="audit-page">
      <PageHeading title={title} />
      <AuditLinks />
      <AuditStatusPanel />
      <AuditSearch table="urls" testId="audit-urls" />
    </Stack>
  );
}
