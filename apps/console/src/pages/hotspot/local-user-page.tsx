import { useMemo } from 'react';
import { Alert, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { hotspotUser, type AnyEntity, type LocalUserPasswordStatus } from '@portico/schema';
import { EntityRoutePage } from '../entity/entity-list-page.js';
import { useStatusQuery } from '../network-status/net-status-query.js';

const REFRESH_MS = 30_000;

/** The accounts whose password must be set again, as text (names are never markup); nothing when none. */
export function LocalUserPasswordNotice({ names }: { names: readonly string[] }) {
  const { t } = useTranslation();
  if (names.length === 0) return null;
  return (
    <Alert color="yellow" data-testid="local-user-need-password">
      {t('hotspotUser.needPassword', { names: names.join(', ') })}
    </Alert>
  );
}

/**
 * /hotspot/localuser: the generated list of local accounts, and above it the accounts that keep
 * no sealed password (daemon: GET auth/userauth/needpassword), whose password must be set again
 * before CHAP sign-ins (PPP servers, CMCC and RU portals) can check it.
 */
export default function LocalUserPage() {
  const entities = useMemo(() => [hotspotUser as unknown as AnyEntity], []);
  const { data } = useStatusQuery<LocalUserPasswordStatus>('auth/userauth/needpassword', {}, REFRESH_MS);
  return (
    <Stack gap="md">
      <LocalUserPasswordNotice names={data?.needPassword ?? []} />
      <EntityRoutePage entities={entities} />
    </Stack>
  );
}
