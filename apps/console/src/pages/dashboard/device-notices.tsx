import { useEffect, useState } from 'react';
import { Alert, Anchor, Group } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { apiGet } from '../../api/api-client.js';

/**
 * What the dashboard says about the device itself: the piracy warning of a locked device
 * (spec general facts, §4) and the way to the setup wizard.
 */
export function DeviceNotices() {
  const { t } = useTranslation();
  const [locked, setLocked] = useState(false);

  useEffect(() => {
    let gone = false;
    apiGet<{ locked?: unknown }>('registration')
      .then((data) => {
        if (!gone) setLocked(data.locked === true);
      })
      .catch(() => {
        // Reported by the API client.
      });
    return () => {
      gone = true;
    };
  }, []);

  return (
    <>
      {locked && (
        <Alert color="red" variant="filled" data-testid="dashboard-piracy">
          {t('license.piracy')}{' '}
          <Anchor component={Link} to="/sysstatus/license" c="white" underline="always">
            {t('menu.license')}
          </Anchor>
        </Alert>
      )}
      <Group justify="flex-end">
        <Anchor component={Link} to="/system/wizard" size="sm" data-testid="dashboard-wizard">
          {t('menu.wizard')}
        </Anchor>
      </Group>
    </>
  );
}
