import { Button, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { HOME_PATH } from '../../routes/navigation.js';
import { usePageTitle } from '../../shell/page-title.js';

/** Any path the console does not route for this account and device. */
export function NotFoundPage() {
  const { t } = useTranslation();
  usePageTitle(t('common.notFound'));
  return (
    <Stack align="center" gap="md" py="xl" data-testid="not-found">
      <Title order={2}>{t('common.notFound')}</Title>
      <Text c="dimmed">{t('common.notFoundText')}</Text>
      <Button component={Link} to={HOME_PATH} variant="light">
        {t('common.backToDashboard')}
      </Button>
    </Stack>
  );
}
