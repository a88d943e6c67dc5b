import { Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useMenuTitle } from '../../routes/current-route.js';
import { PageHeading } from '../../shell/page-heading.js';
import { AuditSearch } from './audit-search.js';

/** IP export (/security/behavioraudit/ipexport): an IP flow search and its CSV. */
export default function AuditIpExportPage() {
  const { t } = useTranslation();
  const title = useMenuTitle();
  return (
    <Stack gap="md" data-testid="audit-ipexport-page">
      <PageHeading title={`${title} · ${t('behaviourAudit.search.toExport')} · ${t('behaviourAudit.search.flows')}`} />
      <AuditSearch table="flows" testId="audit-flows" />
    </Stack>
  );
}
