import { Suspense } from 'react';
import { createTheme, MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import { I18nextProvider } from 'react-i18next';
import { i18n } from '../i18n/console-i18n.js';
import { LoadingIndicator } from '../shell/loading-indicator.js';
import { PageLoader } from '../shell/page-loader.js';
import { ConsoleRouter } from './console-router.js';

const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'sm',
});

export function ConsoleApp() {
  return (
    <I18nextProvider i18n={i18n}>
      <MantineProvider theme={theme} defaultColorScheme="light">
        <Notifications position="top-right" limit={4} zIndex={1000} />
        <LoadingIndicator />
        <Suspense fallback={<PageLoader fullScreen />}>
          <ConsoleRouter />
        </Suspense>
      </MantineProvider>
    </I18nextProvider>
  );
}
