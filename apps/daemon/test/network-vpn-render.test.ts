import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeSchema } from '@portico/schema';
import { HOSTILE_STRINGS, stringSlots } from '@portico/schema/testing';
import type { RenderedFile } from '../src/engine/engine-types.js';
import { NETWORK_FILES, type NetworkConfig } from '../src/domains/network/network-config.js';
import { planNetwork } from '../src/domains/network/network-plan.js';
import { renderNetwork } from '../src/domains/network/network-render.js';
import { renderNftables } from '../src/domains/network/network-nftables.js';
import { RenderValueError } from '../src/domains/network/network-syntax.js';
import { renderVpnClientFiles, checkXl2tpd } from '../src/domains/network/network-vpn.js';
import { checkPppdOptions, checkPppPasswordOptions, checkPppSecret, pppdWord, readPppSecret } from '../src/domains/network/network-vpn-pppd.js';
import { checkSwanctl } from '../src/domains/network/network-vpn-swanctl.js';
import { buildConfig, entityNamed, REPRESENTATIVE, type ConfigInput } from './network-fixture.js';

const here = dirname(fileURLToPath(import.meta.url));
const goldenDir = join(here, 'golden', 'network-vpn');
const update = process.env.UPDATE_GOLDEN === '1';

/** Every VPN shape: PPTP with all traffic through it, L2TP, IPsec IKEv1 aggressive without identities, a disabled client. */
const VPN: ConfigInput = {
  ...REPRESENTATIVE,
  vpnClients: [
    { type: 'pptp', name: 'branch', server: '203.0.113.80', username: 'pptp.user', password: 'pp"tp \\ #pass', defaultroute: true },
    { type: 'l2tp', name: 'office', server: 'vpn.example.com', username: 'branch1', password: "tunnel-pass'" },
    { type: 'ipsec', name: 'legacy', server: 'ipsec.example.net', ike: 'ikev1', ipsec_mode: 'aggressive', peer_subnets: '10.60.0.0/24', psk: 'k"e}y{ #1\\' },
    { type: 'ipsec', name: 'hq', server: '198.51.100.9', peer_subnets: '10.50.0.0/16 10.51.0.0/16', local_id: 'branch.example.com', remote_id: 'hq.example.com', psk: 'pre-shared key 1' },
    { type: 'l2tp', name: 'off', server: '192.0.2.1', username: 'u', password: 'p', enabled: false },
  ],
};

function vpnFiles(config: NetworkConfig): RenderedFile[] {
  return renderVpnClientFiles(planNetwork(config));
}

/** The structural checker of each VPN file, by its target and format. */
function checkerOf({ target, check }: RenderedFile): (content: string) => string[] {
  if (target === NETWORK_FILES.swanctl || target === NETWORK_FILES.swanctlSecrets) return (content) => checkSwanctl(content);
  if (target === NETWORK_FILES.xl2tpd) return checkXl2tpd;
  if (check === 'ppp-secret') return checkPppSecret;
  if (check === 'ppp-password') return checkPppPasswordOptions;
  if (target.endsWith('.options')) return checkPppdOptions;
  throw new Error(`no checker for ${target}`);
}

/**
 * The password a pppd password file gives pppd, read the way pppd's word reader does: `#`
 * starts a comment, quotes group, `\ooo` is a byte of up to three octal digits.
 */
function pppdPassword(content: string): string | null {
  const line = content.split('\n').find((l) => l.startsWith('password '));
  const word = /^password "((?:\\[0-7]{3})+)"$/.exec(line ?? '');
  if (!word) return null;
  return Buffer.from(word[1]!.slice(1).split('\\').map((octal) => parseInt(octal, 8))).toString('utf8');
}

describe('VPN client files', () => {
  const files = vpnFiles(buildConfig(VPN));
  const byTarget = new Map(files.map((f) => [f.target, f]));

  it('golden: every VPN file equals its golden copy (UPDATE_GOLDEN=1 rewrites them)', () => {
    for (const file of files) {
      const golden = join(goldenDir, basename(file.target));
      if (update) {
        mkdirSync(goldenDir, { recursive: true });
        writeFileSync(golden, file.content);
      }
      expect(existsSync(golden), golden).toBe(true);
      expect(file.content, file.target).toBe(readFileSync(golden, 'utf8'));
    }
  });

  it('renders swanctl connections and secrets, xl2tpd, and an options and a 0600 secret file per PPP tunnel', () => {
    expect(files.map((f) => [f.target, f.mode ?? 0o644])).toEqual([
      [NETWORK_FILES.swanctl, 0o644],
      [NETWORK_FILES.swanctlSecrets, 0o600],
      [NETWORK_FILES.xl2tpd, 0o644],
      ['/etc/portico/ppp/vpn1.options', 0o644],
      ['/etc/portico/ppp/vpn1.secret', 0o600],
      ['/etc/portico/ppp/vpn2.options', 0o644],
      ['/etc/portico/ppp/vpn2.secret', 0o600],
    ]);
    // The PPTP pppd gets its password from the daemon, the L2TP one reads it from its own file.
    expect(files.filter((f) => f.target.endsWith('.secret')).map((f) => f.check)).toEqual(['ppp-secret', 'ppp-password']);
    // The files are part of the network render, so the hostile corpus reaches them too.
    const rendered = renderNetwork(buildConfig(VPN))[0]!.files.map((f) => f.target);
    for (const file of files) expect(rendered).toContain(file.target);
  });

  it('every file passes its structural checker', () => {
    for (const config of [buildConfig(VPN), buildConfig(REPRESENTATIVE)]) {
      for (const file of vpnFiles(config)) expect(checkerOf(file)(file.content), file.target).toEqual([]);
    }
  });

  it('IPsec: version, aggressive mode, LAN to peer subnets, no start by itself, keys in hex only', () => {
    const conf = byTarget.get(NETWORK_FILES.swanctl)!.content;
    expect(conf).toContain('\tvpnc-legacy {\n\t\tversion = 1\n\t\taggressive = yes\n\t\tremote_addrs = ipsec.example.net\n');
    expect(conf).toContain('local_ts = 192.168.1.0/24,192.168.20.0/24\n\t\t\t\tremote_ts = 10.50.0.0/16,10.51.0.0/16');
    expect(conf.match(/start_action = none/g)).toHaveLength(2);
    expect(conf).not.toContain('pre-shared');
    const secrets = byTarget.get(NETWORK_FILES.swanctlSecrets)!.content;
    const hex = /ike-vpnc-legacy \{\n\t\tid-remote = ipsec\.example\.net\n\t\tsecret = 0x([0-9a-f]+)\n/.exec(secrets);
    expect(Buffer.from(hex![1]!, 'hex').toString()).toBe('k"e}y{ #1\\');
  });

  it('PPTP runs pptp as the pty with MPPE and a default route; L2TP is a lac that never dials by itself', () => {
    const pptp = byTarget.get('/etc/portico/ppp/vpn1.options')!.content;
    expect(pptp).toContain('pty "pptp 203.0.113.80 --nolaunchpppd"\n');
    expect(pptp).toContain('ifname vpn-branch\n');
    expect(pptp).toContain('require-mppe-128\n');
    expect(pptp).toContain('defaultroute\ndefaultroute-metric 1\n');
    expect(readPppSecret(byTarget.get('/etc/portico/ppp/vpn1.secret')!.content)).toBe('pp"tp \\ #pass');
    const xl2tpd = byTarget.get(NETWORK_FILES.xl2tpd)!.content;
    expect(xl2tpd).toContain('[lac office]\nlns = vpn.example.com\nname = branch1\npppoptfile = /etc/portico/ppp/vpn2.options\n');
    expect(xl2tpd).toContain('autodial = no');
    expect(xl2tpd).not.toContain('[lac off]');
    expect(byTarget.get('/etc/portico/ppp/vpn2.options')!.content).toContain('nodefaultroute\nfile /etc/portico/ppp/vpn2.secret\n');
    expect(pppdPassword(byTarget.get('/etc/portico/ppp/vpn2.secret')!.content)).toBe("tunnel-pass'");
    expect(byTarget.get('/etc/portico/ppp/vpn2.secret')!.content).not.toContain('tunnel');
  });

  it("a PPTP client puts its control connection under conntrack's PPTP helper, so the server's GRE is related to it", () => {
    const ruleset = (input: ConfigInput) => renderNftables(planNetwork(buildConfig(input)), { adminPorts: [8080], arpAuthNoticePort: 8081 });
    const withPptp = ruleset(VPN);
    expect(withPptp).toContain('\tct helper pptp_client { type "pptp" protocol tcp; l3proto ip; }\n');
    expect(withPptp).toMatch(/chain vpn_client_helpers \{\n\t\ttype filter hook output priority filter; policy accept;\n\t\ttcp dport 1723 ct helper set "pptp_client"\n/);
    const clients = VPN.vpnClients as Array<{ type: string }>;
    const withoutPptp = ruleset({ ...VPN, vpnClients: clients.filter((client) => client.type !== 'pptp') });
    expect(withoutPptp).not.toContain('pptp');
    const disabled = ruleset({ ...VPN, vpnClients: clients.map((client) => (client.type === 'pptp' ? { ...client, enabled: false } : client)) });
    expect(disabled).not.toContain('ct helper');
  });

  it('no VPN client, no VPN file', () => {
    expect(vpnFiles(buildConfig({ ...REPRESENTATIVE, vpnClients: [] }))).toEqual([]);
  });
});

describe('VPN file syntax', () => {
  it('pppd words: bare tokens stay bare, anything else is double-quoted with \\ and " escaped', () => {
    expect(pppdWord('user@isp')).toBe('user@isp');
    expect(pppdWord('a b')).toBe('"a b"');
    expect(pppdWord('a"b\\c #d')).toBe('"a\\"b\\\\c #d"');
    expect(pppdWord('-opt')).toBe('"-opt"');
    expect(() => pppdWord('a\nb')).toThrow();
    expect(() => pppdWord('中')).toThrow(RenderValueError);
  });

  it('the checkers refuse what the renderers never write', () => {
    expect(checkPppdOptions('noauth\n')).toEqual([]);
    expect(checkPppdOptions('noauth')).toEqual(['file does not end with a newline']);
    expect(checkPppdOptions('connect /bin/sh\n')).toEqual(['line 1: unknown option connect']);
    expect(checkPppdOptions('name "a"b"\n')).toEqual(['line 1: words are not single-space separated']);
    expect(checkPppdOptions('name  x\n')).toEqual(['line 1: words are not single-space separated']);
    expect(checkPppdOptions('name x #c\n')).toEqual(['line 1: malformed word']);
    expect(checkPppSecret('# x\npassword-hex 6g\n')).toEqual(['not a PPP secret file']);
    expect(checkPppPasswordOptions('# x\npassword "\\141"\n')).toEqual([]);
    for (const bad of ['# x\npassword "a"\n', '# x\npassword "\\141" noauth\n', '# x\npassword \\141\n', '# x\npassword "\\41"\n', '# x\npassword "\\141"\nplugin x.so\n']) {
      expect(checkPppPasswordOptions(bad), bad).toEqual(['not a pppd password file']);
    }
    expect(checkXl2tpd('[lac a]\nlns = x y\n')).toEqual(['line 2: not a section or setting']);
    expect(checkXl2tpd('lns = x\n')).toEqual(['line 1: setting outside a section']);
    expect(checkXl2tpd('[lac a]\nppp options = x\n')).toEqual(['line 2: unknown setting ppp options']);
    expect(checkSwanctl('connections {\n\ta {\n\t\tversion = 2\n\t}\n}\n')).toEqual([]);
    expect(checkSwanctl('connections {\n\ta {\n\t}\n')).toEqual(['unclosed section connections']);
    expect(checkSwanctl('connections {\n\ta {\n')).toEqual(['unclosed section connections.a']);
    expect(checkSwanctl('connections {\n}\n}\n')).toEqual(['line 3: unbalanced }']);
    expect(checkSwanctl('charon {\n}\n')).toEqual(['line 1: unknown top-level section charon']);
    expect(checkSwanctl('secrets {\n\tike {\n\t\tsecret = "x"\n\t}\n}\n')).toEqual(['line 3: quote, escape, comment, brace or reference inside a value']);
    expect(checkSwanctl('connections {\n\ta {\n\t\tremote_addrs = a b\n\t}\n}\n')).toEqual(['line 3: value of remote_addrs is not a plain token']);
    expect(checkSwanctl('include ../etc/shadow\n')).toEqual(['line 1: include of neither an absolute path nor a file beside this one', 'line 1: include path leaves its folder']);
    expect(checkSwanctl('secrets {\n\tike {\n\t\tsecret = abc\n\t}\n}\n')).toEqual(['line 3: secret is not hex']);
    expect(checkSwanctl('connections {\n\tinclude /etc/x\n}\n')).toEqual(['line 2: include inside a section']);
    expect(checkSwanctl('connections {\na {\n}\n}\n')).toEqual(['line 2: indentation does not follow nesting', 'line 4: unbalanced }']);
  });
});

describe('hostile strings in every field of every VPN client type', () => {
  const entity = entityNamed('vpnClient');
  const base = buildConfig(VPN);
  const shape = (files: RenderedFile[]) => files.map((f) => `${f.target} ${f.mode ?? ''} ${f.content.split('\n').length}`);

  for (const index of [0, 1, 2, 3]) {
    const original = (VPN.vpnClients as Array<Record<string, unknown>>)[index]!;
    it(`${String(original.type)} ${String(original.name)}: accepted values render, pass the checkers and keep the file shape`, () => {
      const baseline = shape(vpnFiles(base));
      let accepted = 0;
      for (const slot of stringSlots(entity.schema)) {
        if (slot.inArray) continue;
        for (const hostile of HOSTILE_STRINGS) {
          const result = writeSchema(entity, 'add').safeParse({ ...original, [slot.field]: hostile });
          if (!result.success) continue;
          accepted++;
          const row = { ...(result.data as object), id: `vpnClient-${index + 1}` } as NetworkConfig['vpnClients'][number];
          const config: NetworkConfig = { ...base, vpnClients: base.vpnClients.map((r, i) => (i === index ? row : r)) };
          const files = vpnFiles(config);
          const what = `${slot.field} = ${JSON.stringify(hostile.slice(0, 40))}`;
          for (const file of files) expect(checkerOf(file)(file.content), `${what} in ${file.target}`).toEqual([]);
          // Setting an identity the row did not have adds its line; nothing else changes the files or their lines.
          const addsLine = ['local_id', 'remote_id'].includes(slot.field) && ((original[slot.field] ?? '') === '' || hostile === '');
          if (!addsLine) expect(shape(files), what).toEqual(baseline);
          if (slot.field === 'password' && row.type !== 'ipsec') {
            const secret = files.find((f) => f.target === `/etc/portico/ppp/vpn${index + 1}.secret`)!;
            expect(row.type === 'l2tp' ? pppdPassword(secret.content) : readPppSecret(secret.content), what).toBe(hostile);
          }
        }
      }
      expect(accepted).toBeGreaterThan(0);
    }, 120_000);
  }
});
