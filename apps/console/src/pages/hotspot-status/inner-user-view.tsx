import { useState } from 'react';
import { Anchor, Badge, SegmentedControl, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { CLIENT_AUTH_STATES, type OnlineUser } from '@portico/schema';
import type { Translate } from './hotspot-status-api.js';

export const INNER_USER_REFRESH_MS = 5_000;
const AUTH_COLOR: Record<OnlineUser['auth'], string> = { auth: 'teal', preauth: 'orange', none: 'gray' };

/** A client's authentication state as a badge. */
export function authBadge(user: Pick<OnlineUser, 'auth'>, t: Translate) {
  return (
    <Badge color={AUTH_COLOR[user.auth]} variant="light">
      {t(`hotspotStatus.auth.${user.auth}`)}
    </Badge>
  );
}

/** A link to one client's detail page; the address is put in the query, never into markup. */
export function detailLink(ip: string) {
  return (
    <Anchor component={Link} to={`/sysstatus/inneruser/detail?ip=${encodeURIComponent(ip)}`} size="sm" data-testid="inner-user-detail-link">
      {ip}
    </Anchor>
  );
}

/** Clients matching the filters: authentication state and a text in address, MAC, name or account. */
export function filterUsers(items: readonly OnlineUser[], auth: 'all' | OnlineUser['auth'], query: string): OnlineUser[] {
  const q = query.trim().toLowerCase();
  return items.filter(
    (u) => (auth === 'all' || u.auth === auth) && (q === '' || [u.ip, u.mac, u.hostname, u.username].some((v) => v.toLowerCase().includes(q))),
  );
}

/** The filter controls shared by the inner-user lists. */
export function useInnerUserFilters() {
  const { t } = useTranslation();
  const [auth, setAuth] = useState<'all' | OnlineUser['auth']>('all');
  const [query, setQuery] = useState('');
  const controls = (
    <>
      <SegmentedControl
        data-testid="inner-user-auth-filter"
        value={auth}
        onChange={(value) => setAuth(value as typeof auth)}
        data={[{ value: 'all', label: t('hotspotStatus.all') }, ...CLIENT_AUTH_STATES.map((s) => ({ value: s, label: t(`hotspotStatus.auth.${s}`) }))]}
      />
      <TextInput aria-label={t('hotspotStatus.search')} placeholder={t('hotspotStatus.searchHint')} w={320} value={query} maxLength={64} onChange={(e) => setQuery(e.currentTarget.value)} />
    </>
  );
  return { auth, query, controls };
}
