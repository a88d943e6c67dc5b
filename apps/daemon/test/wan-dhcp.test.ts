import { describe, expect, it } from 'vitest';
import { HOSTILE_STRINGS } from '@portico/schema/testing';
import { leaseCommands, leaseOf, type DhcpWanClient } from '../src/domains/network/network-wan-dhcp.js';

const CLIENT: DhcpWanClient = { name: 'wan2', device: 'wan2', metric: 102 };
const MULTI: DhcpWanClient = { name: 'wan2', device: 'wan2', metric: 12, table: 102, rulePriority: 10202 };

describe('what a DHCP WAN takes from its lease', () => {
  it('reads address, prefix (from mask or subnet), first router and up to three DNS servers', () => {
    expect(leaseOf({ event: 'bound', ip: '203.0.113.50', mask: '24', router: '203.0.113.1 203.0.113.2', dns: '192.0.2.53 192.0.2.54' })).toEqual({
      address: '203.0.113.50',
      prefix: 24,
      router: '203.0.113.1',
      dns: ['192.0.2.53', '192.0.2.54'],
    });
    expect(leaseOf({ event: 'renew', ip: '10.1.2.3', subnet: '255.255.0.0', dns: '1.1.1.1 2.2.2.2 3.3.3.3 4.4.4.4' })).toEqual({
      address: '10.1.2.3',
      prefix: 16,
      router: null,
      dns: ['1.1.1.1', '2.2.2.2', '3.3.3.3'],
    });
  });

  it('takes nothing from other events or from values that are not addresses', () => {
    expect(leaseOf({ event: 'deconfig' })).toBeNull();
    expect(leaseOf({ event: 'bound', ip: '203.0.113.500', mask: '24' })).toBeNull();
    expect(leaseOf({ event: 'bound', ip: '203.0.113.5', mask: '33' })).toBeNull();
    expect(leaseOf({ event: 'bound', ip: '203.0.113.5', subnet: '255.0.255.0' })).toBeNull();
  });

  it('a hostile DHCP server gets no string of its own into a command', () => {
    for (const text of HOSTILE_STRINGS) {
      const lease = leaseOf({ event: 'bound', ip: text, mask: text, subnet: text, router: text, dns: text });
      if (lease) throw new Error(`accepted ${JSON.stringify(text)}`);
      const partial = leaseOf({ event: 'bound', ip: '203.0.113.5', mask: '24', router: text, dns: text });
      // Every argument is a plain token: no space, quote, newline or shell character came through.
      for (const argv of leaseCommands(CLIENT, partial, null)) for (const arg of argv) expect(arg).toMatch(/^[A-Za-z0-9./-]+$/);
    }
  });
});

describe('the commands a lease becomes', () => {
  const lease = { address: '203.0.113.50', prefix: 24, router: '203.0.113.1', dns: [] };

  it('a first lease: flush, address, default route at the WAN metric', () => {
    expect(leaseCommands(CLIENT, lease, null)).toEqual([
      ['ip', 'address', 'flush', 'dev', 'wan2', 'scope', 'global'],
      ['ip', 'address', 'replace', '203.0.113.50/24', 'dev', 'wan2'],
      ['ip', 'route', 'replace', 'default', 'via', '203.0.113.1', 'dev', 'wan2', 'proto', 'dhcp', 'metric', '102'],
    ]);
  });

  it('a renewal of the same address keeps the address in place', () => {
    expect(leaseCommands(CLIENT, lease, lease)).toEqual([
      ['ip', 'address', 'replace', '203.0.113.50/24', 'dev', 'wan2'],
      ['ip', 'route', 'replace', 'default', 'via', '203.0.113.1', 'dev', 'wan2', 'proto', 'dhcp', 'metric', '102'],
    ]);
  });

  it('with multi-WAN the WAN table and source rule follow the lease', () => {
    expect(leaseCommands(MULTI, lease, null)).toEqual([
      ['ip', 'address', 'flush', 'dev', 'wan2', 'scope', 'global'],
      ['ip', 'route', 'flush', 'table', '102'],
      ['ip', 'rule', 'del', 'priority', '10202'],
      ['ip', 'address', 'replace', '203.0.113.50/24', 'dev', 'wan2'],
      ['ip', 'route', 'replace', 'default', 'via', '203.0.113.1', 'dev', 'wan2', 'proto', 'dhcp', 'metric', '12'],
      ['ip', 'route', 'replace', 'default', 'via', '203.0.113.1', 'dev', 'wan2', 'table', '102', 'proto', 'dhcp'],
      ['ip', 'rule', 'add', 'priority', '10202', 'from', '203.0.113.50', 'lookup', '102', 'protocol', 'dhcp'],
    ]);
  });

  it('losing the lease clears the address, table and rule', () => {
    expect(leaseCommands(MULTI, null, lease)).toEqual([
      ['ip', 'address', 'flush', 'dev', 'wan2', 'scope', 'global'],
      ['ip', 'route', 'flush', 'table', '102'],
      ['ip', 'rule', 'del', 'priority', '10202'],
    ]);
  });
});
