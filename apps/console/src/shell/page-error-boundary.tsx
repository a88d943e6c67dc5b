import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Button, Stack, Text } from '@mantine/core';
import { Translation } from 'react-i18next';

interface Props {
  children: ReactNode;
  /** Changing it (another route) clears a shown error. */
  resetKey: string;
}

interface State {
  failed: boolean;
}

/**
 * A page that cannot load (its chunk is gone after an upgrade, or it threw) shows the
 * generic failure and a reload button instead of leaving the main area blank.
 */
export class PageErrorBoundary extends Component<Props, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidUpdate(previous: Props): void {
    if (previous.resetKey !== this.props.resetKey && this.state.failed) this.setState({ failed: false });
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(error, info.componentStack);
  }

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return (
      <Translation>
        {(t) => (
          <Stack align="center" gap="md" py="xl" data-testid="page-error">
            <Text>{t('common.requestFailed')}</Text>
            <Button variant="light" onClick={() => window.location.reload()}>
              {t('common.retry')}
            </Button>
          </Stack>
        )}
      </Translation>
    );
  }
}
