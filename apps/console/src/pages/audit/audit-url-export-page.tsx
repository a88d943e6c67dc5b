import { Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useMenuTitle } from '../../routes/current-route.js';
import { PageHeading } from '../../shell/page-heading.js';
import { AuditSearch } from './audit-search.js';

/** URL export (/security/behavioraudit/urlexport): a URL search and its CSV. */
export default function AuditUrlExportPage() {
  const { t } = useTranslation();
  const title = useMenuTitle();
  return (
    <Stack gap="md" data-testid="audit-urlexport-page">
      <PageHeading title={`${title} · ${t('behaviourAudit.search.toExport')} · ${t('behaviourAudit.search.urls')}`} />
      <AuditSearch table="urls" testId="audit-urls" />
    </Stack>
  );
}
