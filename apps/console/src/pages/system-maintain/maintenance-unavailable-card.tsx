import { Badge, Card, Group, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The maintenance functions of the spec this build does not carry yet. */
export const UNAVAILABLE_FUNCTIONS = ['upgrade'] as const;

/**
 * Says plainly that firmware upgrade is missing here, with no buttons, so nothing looks as
 * if it worked.
 */
export function MaintenanceUnavailableCard() {
  const { t } = useTranslation();
  return (
    <Card withBorder padding="md" data-testid="maintain-unavailable">
      <Group justify="space-between" wrap="wrap" mb="xs">
        <Title order={4}>{t('maintain.other.title')}</Title>
        <Badge color="gray" variant="light" tt="none">
          {t('maintain.other.badge')}
        </Badge>
      </Group>
      <Text size="sm" c="dimmed" mb="sm">
        {t('maintain.other.text')}
      </Text>
      <Stack gap={4}>
        {UNAVAILABLE_FUNCTIONS.map((name) => (
          <Group key={name} gap="xs" data-testid={`maintain-unavailable-${name}`}>
            <Text size="sm">{t(`maintain.other.${name}`)}</Text>
            <Text size="xs" c="dimmed">
              {t('maintain.other.unavailable')}
            </Text>
          </Group>
        ))}
      </Stack>
    </Card>
  );
}
