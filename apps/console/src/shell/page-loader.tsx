import { Center, Loader } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Shown while a page chunk or the session loads. */
export function PageLoader({ fullScreen = false }: { fullScreen?: boolean }) {
  const { t } = useTranslation();
  return (
    <Center h={fullScreen ? '100vh' : undefined} py="xl">
      <Loader aria-label={t('common.loading')} data-testid="page-loader" />
    </Center>
  );
}
