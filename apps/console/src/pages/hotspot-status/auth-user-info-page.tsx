import { useState } from 'react';
import { Badge, Button, Group, Modal, NumberInput, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { showSuccessNotice } from '../../shell/notice.js';
import { useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame, StatusTable } from '../network-status/net-status-parts.js';
import {
  blockMac,
  durationText,
  formatBytes,
  HOTSPOT_ONLINE_PATH,
  kbpsText,
  kickOff,
  rateLimit,
  remainingBytesText,
  remainingTimeText,
  unblockMac,
  type OnlineHotspotList,
  type OnlineHotspotUser,
} from './hotspot-status-api.js';
import { useMenuTitle } from '../../routes/current-route.js';

const REFRESH_MS = 10_000;
/** Highest rate the daemon accepts (Kbit/s). */
const RATE_MAX = 10_000_000;

/**
 * Online authenticated users (/sysstatus/authuserinfo): the hotspot's authorised clients with
 * their usage and what remains, and the administrator's actions on them: kick off, speed
 * limit, black-list. Every value from the device is rendered as React text.
 */
export default function AuthUserInfoPage() {
  const { t } = useTranslation();
  const { data, failed, refresh } = useStatusQuery<OnlineHotspotList>(HOTSPOT_ONLINE_PATH, {}, REFRESH_MS);

  async function act(reply: Promise<{ success: boolean }>) {
    const answer = await reply.catch(() => null);
    if (answer?.success) {
      showSuccessNotice(t('hotspotStatus.online.done'));
      refresh();
    }
  }

  return (
    <AuthUserInfoView
      data={data}
      failed={failed}
      onKick={(user) => {
        if (window.confirm(t('hotspotStatus.online.confirmKick', { ip: user.ip }))) void act(kickOff(user.ip));
      }}
      onBlock={(user) => {
        if (window.confirm(t('hotspotStatus.online.confirmBlock', { mac: user.mac }))) void act(blockMac(user.mac));
      }}
      onUnblock={(mac) => void act(unblockMac(mac))}
      onRate={(user, up, down) => void act(rateLimit(user.ip, up, down))}
    />
  );
}

export interface AuthUserInfoViewProps {
  data: OnlineHotspotList | null;
  failed: boolean;
  onKick: (user: OnlineHotspotUser) => void;
  onBlock: (user: OnlineHotspotUser) => void;
  onUnblock: (mac: string) => void;
  onRate: (user: OnlineHotspotUser, upKbps: number, downKbps: number) => void;
}

/** The page's content for given data; the actions are the caller's. */
export function AuthUserInfoView({ data, failed, onKick, onBlock, onUnblock, onRate }: AuthUserInfoViewProps) {
  const { t, i18n } = useTranslation();
  const menuTitle = useMenuTitle();
  const [limiting, setLimiting] = useState<OnlineHotspotUser | null>(null);
  return (
    <StatusFrame testId="auth-user-info-page" title={menuTitle} failed={failed} loading={!data}>
      {data && (
        <Stack gap="md">
          <Text size="sm" c="dimmed" data-testid="online-total">
            {t('hotspotStatus.online.total', { total: data.total })}
          </Text>
          <StatusTable
            testId="online-user-table"
            head={[
              t('hotspotStatus.field.ip'),
              t('hotspotStatus.field.mac'),
              t('hotspotStatus.field.username'),
              t('hotspotStatus.field.method'),
              t('hotspotStatus.field.plan'),
              t('hotspotStatus.field.onlineTime'),
              t('hotspotStatus.field.upload'),
              t('hotspotStatus.field.download'),
              t('hotspotStatus.field.timeLeft'),
              t('hotspotStatus.field.flowLeft'),
              t('hotspotStatus.field.rate'),
              t('hotspotStatus.field.actions'),
            ]}
            rows={data.items.map((user) => ({
              key: user.ip,
              cells: [
                user.ip,
                user.mac,
                <span data-testid="online-username">{user.username || '-'}</span>,
                t(`hotspotStatus.method.${methodKey(user.kind)}`),
                <span data-testid="online-plan">{user.plan || '-'}</span>,
                durationText(user.onlineSeconds, t, i18n.language),
                formatBytes(user.bytesUp),
                formatBytes(user.bytesDown),
                remainingTimeText(user.secondsRemaining, t, i18n.language),
                remainingBytesText(user.bytesRemaining, t),
                `${kbpsText(user.upKbps, t)} / ${kbpsText(user.downKbps, t)}`,
                <Group gap={4} wrap="nowrap">
                  <Button size="compact-xs" variant="light" color="orange" onClick={() => onKick(user)} data-testid="online-kick">
                    {t('hotspotStatus.online.kick')}
                  </Button>
                  <Button size="compact-xs" variant="light" onClick={() => setLimiting(user)} data-testid="online-rate">
                    {t('hotspotStatus.online.rateLimit')}
                  </Button>
                  <Button size="compact-xs" variant="light" color="red" onClick={() => onBlock(user)} data-testid="online-block">
                    {t('hotspotStatus.online.block')}
                  </Button>
                </Group>,
              ],
            }))}
          />
          <Title order={5}>{t('hotspotStatus.online.blockedTitle')}</Title>
          {data.blocked.length === 0 ? (
            <Text size="sm" c="dimmed">
              {t('hotspotStatus.online.noneBlocked')}
            </Text>
          ) : (
            <Group gap="xs" data-testid="blocked-macs">
              {data.blocked.map((mac) => (
                <Badge
                  key={mac}
                  variant="light"
                  color="red"
                  rightSection={
                    <Button size="compact-xs" variant="subtle" onClick={() => onUnblock(mac)} aria-label={t('hotspotStatus.online.unblock')}>
                      {t('hotspotStatus.online.unblock')}
                    </Button>
                  }
                >
                  {mac}
                </Badge>
              ))}
            </Group>
          )}
        </Stack>
      )}
      <RateLimitDialog
        user={limiting}
        onClose={() => setLimiting(null)}
        onSave={(user, up, down) => {
          setLimiting(null);
          onRate(user, up, down);
        }}
      />
    </StatusFrame>
  );
}

const METHODS = ['voucher', 'local', 'password', 'onekey', 'radius', 'ldap', 'sms', 'wifidog', 'cmcc', 'rusystem', 'cloudportal', 'weixin', 'social'] as const;

/** The sign-in method of a session; anything unknown reads as other. */
function methodKey(kind: string): (typeof METHODS)[number] | 'other' {
  return (METHODS as readonly string[]).includes(kind) ? (kind as (typeof METHODS)[number]) : 'other';
}

function RateLimitDialog(props: { user: OnlineHotspotUser | null; onClose: () => void; onSave: (user: OnlineHotspotUser, up: number, down: number) => void }) {
  const { t } = useTranslation();
  const [up, setUp] = useState<number | string>(0);
  const [down, setDown] = useState<number | string>(0);
  const [shownFor, setShownFor] = useState<string | null>(null);
  const user = props.user;
  // Start from the client's current limits each time the dialog opens for it.
  if (user && shownFor !== user.ip) {
    setShownFor(user.ip);
    setUp(user.upKbps);
    setDown(user.downKbps);
  }
  if (!user && shownFor !== null) setShownFor(null);
  const valid = (v: number | string) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= RATE_MAX;
  return (
    <Modal opened={user !== null} onClose={props.onClose} title={t('hotspotStatus.online.rateTitle', { ip: user?.ip ?? '' })}>
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {t('hotspotStatus.online.rateHint')}
        </Text>
        <NumberInput label={t('hotspotStatus.online.upKbps')} min={0} max={RATE_MAX} allowDecimal={false} value={up} onChange={setUp} data-testid="rate-up" />
        <NumberInput label={t('hotspotStatus.online.downKbps')} min={0} max={RATE_MAX} allowDecimal={false} value={down} onChange={setDown} data-testid="rate-down" />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            {t('hotspotStatus.cancel')}
          </Button>
          <Button disabled={!user || !valid(up) || !valid(down)} onClick={() => user && props.onSave(user, Number(up), Number(down))} data-testid="rate-save">
            {t('hotspotStatus.save')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
