import { Badge, Group, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { DeviceKind, Topology } from '@portico/schema';
import { useStatusQuery } from '../network-status/net-status-query.js';
import { StatusFrame } from '../network-status/net-status-parts.js';
import { useMenuTitle } from '../../routes/current-route.js';

const REFRESH_MS = 15_000;
const NODE_W = 150;
const NODE_H = 44;
const LEVEL_GAP = 110;
const SIBLING_GAP = 20;

type Node = Topology['nodes'][number];

/**
 * Lays the graph out as a tree from the gateway: each node's children are the nodes its
 * links lead to, placed one level down and spread under their parent. Pure, so the layout
 * is testable and a cycle in a device's report cannot loop.
 */
export function layoutTopology(topology: Topology): { positions: Map<string, { x: number; y: number }>; width: number; height: number } {
  const children = new Map<string, string[]>();
  for (const link of topology.links) children.set(link.from, [...(children.get(link.from) ?? []), link.to]);
  const positions = new Map<string, { x: number; y: number }>();
  const visited = new Set<string>();
  let nextX = 0;
  let depthMax = 0;
  const place = (id: string, depth: number): number => {
    depthMax = Math.max(depthMax, depth);
    // Claim the children first, so a node two parents name is drawn once.
    const kids = (children.get(id) ?? []).filter((kid) => !visited.has(kid));
    for (const kid of kids) visited.add(kid);
    const xs = kids.map((kid) => place(kid, depth + 1));
    let x: number;
    if (xs.length) x = (xs[0]! + xs[xs.length - 1]!) / 2;
    else {
      x = nextX;
      nextX += NODE_W + SIBLING_GAP;
    }
    positions.set(id, { x, y: depth * LEVEL_GAP });
    return x;
  };
  for (const node of topology.nodes) {
    if (node.kind !== 'gateway') continue;
    visited.add(node.id);
    place(node.id, 0);
  }
  // Devices no link reaches (a receiver whose base is unknown) stand on a row of their own.
  const orphanDepth = depthMax + 1;
  for (const node of topology.nodes) {
    if (visited.has(node.id)) continue;
    visited.add(node.id);
    place(node.id, orphanDepth);
  }
  return { positions, width: Math.max(nextX - SIBLING_GAP, NODE_W), height: depthMax * LEVEL_GAP + NODE_H };
}

function nodeColor(node: Node): string {
  if (node.kind === 'gateway') return 'var(--mantine-color-blue-6)';
  return node.online ? 'var(--mantine-color-teal-6)' : 'var(--mantine-color-gray-5)';
}

/** The topology of one kind of device. Names come from devices: SVG <text> renders them as text. */
export function TopologyView({ kind }: { kind: DeviceKind }) {
  const { t } = useTranslation();
  const menuTitle = useMenuTitle();
  const { data, failed } = useStatusQuery<Topology>('ac/topology', { kind }, REFRESH_MS);
  const layout = data ? layoutTopology(data) : null;
  const byId = new Map((data?.nodes ?? []).map((n) => [n.id, n]));
  const label = (node: Node) =>
    node.kind === 'gateway' ? t('wireless.topology.gateway') : node.name || node.id;
  return (
    <StatusFrame testId={`${kind}-topology-page`} title={menuTitle} failed={failed} loading={!data}>
      {data && layout && (
        <Stack gap="sm">
          <Group gap="xs">
            <Badge variant="dot" color="teal">
              {t('wireless.state.normal')}
            </Badge>
            <Badge variant="dot" color="gray">
              {t('wireless.state.offline')}
            </Badge>
            <Text size="sm" c="dimmed">
              {t('wireless.topology.count', { count: data.nodes.length - 1 })}
            </Text>
          </Group>
          <div style={{ overflowX: 'auto' }}>
            <svg
              role="img"
              aria-label={menuTitle}
              width={layout.width + 20}
              height={layout.height + 20}
              viewBox={`-10 -10 ${layout.width + 20} ${layout.height + 20}`}
              data-testid="topology-graph"
            >
              {data.links.map((link) => {
                const a = layout.positions.get(link.from);
                const b = layout.positions.get(link.to);
                if (!a || !b) return null;
                return (
                  <g key={`${link.from}-${link.to}`} data-testid="topology-link">
                    <line
                      x1={a.x + NODE_W / 2}
                      y1={a.y + NODE_H}
                      x2={b.x + NODE_W / 2}
                      y2={b.y}
                      stroke="var(--mantine-color-gray-6)"
                      strokeDasharray={link.medium === 'wireless' ? '6 4' : undefined}
                    />
                    {link.signal !== null && (
                      <text x={(a.x + b.x) / 2 + NODE_W / 2 + 4} y={(a.y + NODE_H + b.y) / 2} fontSize={11} fill="currentColor">
                        {t('wireless.station.dbm', { value: link.signal })}
                      </text>
                    )}
                  </g>
                );
              })}
              {[...layout.positions.entries()].map(([id, p]) => {
                const node = byId.get(id)!;
                return (
                  <g key={id} transform={`translate(${p.x},${p.y})`} data-testid="topology-node">
                    <rect width={NODE_W} height={NODE_H} rx={6} fill="var(--mantine-color-body)" stroke={nodeColor(node)} strokeWidth={2} />
                    <text x={8} y={18} fontSize={12} fill="currentColor">
                      {label(node).slice(0, 20)}
                    </text>
                    <text x={8} y={34} fontSize={11} fill="var(--mantine-color-dimmed)">
                      {node.kind === 'gateway'
                        ? ''
                        : node.role
                          ? t(`cpeProfile.option.mode.${node.role}`)
                          : t('wireless.topology.stations', { count: node.stations })}
                    </text>
                  </g>
                );
              })}
            </svg>
          </div>
        </Stack>
      )}
    </StatusFrame>
  );
}
