import { ipv4ToInt, isIpv4, MSG, parseIpv4Range, PPP_SERVER_KINDS, type PppServerSettings } from '@portico/schema';
import type { AppContext } from '../../app-context.js';
import type { EntityBinding } from '../../config/entity-routes.js';
import { failure } from '../../plugins/api-envelope.js';
import { networkConfigOf, planNetwork } from '../network/network-public.js';
import { pppEntity, pppSettingsOf } from './ppp-server-files.js';
import { hotspotRadiusOf, pppRadiusProblem } from './ppp-server-radius.js';

/** The addresses a server takes: its range and its local IP, as inclusive integer ranges. */
function taken(settings: Partial<PppServerSettings>): Array<{ first: number; last: number }> {
  const out = [];
  const range = typeof settings.remoteip === 'string' ? parseIpv4Range(settings.remoteip) : null;
  if (range) out.push(range);
  if (typeof settings.localip === 'string' && isIpv4(settings.localip)) out.push({ first: ipv4ToInt(settings.localip), last: ipv4ToInt(settings.localip) });
  return out;
}

/**
 * Cross-row rule of the PPP servers: each hands out its own addresses, so an enabled server's
 * range must not overlap another enabled server's range or local IP (a session's route would
 * go to the wrong server's link).
 */
export function pppRangeConflict(candidate: Partial<PppServerSettings>, others: readonly Partial<PppServerSettings>[]): Record<string, string> {
  if (!candidate.enabled) return {};
  const mine = parseIpv4Range(String(candidate.remoteip ?? ''));
  if (!mine) return {};
  const overlaps = others.filter((other) => other.enabled).some((other) => taken(other).some((range) => range.first <= mine.last && mine.first <= range.last));
  return overlaps ? { remoteip: 'validation.ppp.rangeOverlap' } : {};
}

export function pppServerBindings(ctx: AppContext): Record<string, EntityBinding> {
  return Object.fromEntries(
    PPP_SERVER_KINDS.map((kind) => [
      pppEntity(kind).name,
      {
        rules: {
          checkWrite: ({ record }: { record: Record<string, unknown> }) => {
            const snapshot = ctx.config.journal.capture();
            const candidate = { ...pppSettingsOf(snapshot, kind), ...record } as Partial<PppServerSettings>;
            const others = PPP_SERVER_KINDS.filter((other) => other !== kind).map((other) => pppSettingsOf(snapshot, other));
            const errors = pppRangeConflict(candidate, others);
            // The interfaces named must exist (a PPPoE server answers discovery on their devices).
            const devices = planNetwork(networkConfigOf(snapshot)).deviceOf;
            if ((candidate.interfaces ?? []).some((name) => !devices.has(name))) errors.interfaces = 'validation.network.unknownInterface';
            // L2TP/IPsec needs its key: the record holds the stored one when none was sent.
            if (kind === 'l2tp' && record.ipsec === true && !record.psk) errors.psk = 'validation.required';
            // RADIUS accounts need the device's RADIUS server set up in a form pppd's plugin reads.
            if (candidate.enabled && candidate.authway === 'radius') {
              const problem = pppRadiusProblem(hotspotRadiusOf(snapshot));
              if (problem) errors.authway = problem;
            }
            return Object.keys(errors).length ? failure(MSG.invalid, errors) : undefined;
          },
        },
      } satisfies EntityBinding,
    ]),
  );
}
