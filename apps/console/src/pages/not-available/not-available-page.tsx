import { Alert, Stack } from '@mantine/core';
import { PageHeading } from '../../shell/page-heading.js';
import { useTranslation } from 'react-i18next';

/**
 * A menu page this build has no screen for. It says so plainly instead of showing an empty
 * form that would look as if it worked.
 */
export function NotAvailablePage({ title }: { title: string }) {
  const { t } = useTranslation();
  return (
    <Stack gap="md" data-testid="not-available">
      <PageHeading title={title} />
      <Alert color="gray" variant="light">
        {t('common.notAvailable')}
      </Alert>
    </Stack>
  );
}
