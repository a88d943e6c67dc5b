import type { ReactNode } from 'react';
import { Box, Container, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch } from './language-switch.js';
import { usePageTitle } from './page-title.js';

/** The frame of the pages reachable without the console: sign-in and password change. */
export function PublicFrame({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  usePageTitle(title);
  return (
    <Box mih="100vh" bg="var(--mantine-color-gray-0)">
      <Group justify="flex-end" p="md">
        <LanguageSwitch />
      </Group>
      <Container size={420} pb="xl">
        <Stack align="center" gap={4}>
          <Title order={1}>{t('common.productName')}</Title>
          <Text c="dimmed">{t('login.subtitle')}</Text>
        </Stack>
        <Paper withBorder shadow="sm" radius="md" p="lg" mt="lg">
          <Title order={2} size="h3" mb="md">
            {title}
          </Title>
          {children}
        </Paper>
      </Container>
    </Box>
  );
}
