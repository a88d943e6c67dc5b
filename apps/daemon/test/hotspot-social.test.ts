import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { hotspotSocial } from '@portico/schema';
import { SimDataplane } from '../src/domains/hotspot/hotspot-dataplane.js';
import { adminClient, get, json, post, startDaemon, type Client, type Harness } from './daemon-harness.js';
import { backAtGateway, captiveLocation, followRedirect, fromClient, portalErrorOf } from './hotspot-fixture.js';

/**
 * Social login: a zone of auth model social sends captive clients to an OpenID provider on
 * loopback (built here with jose's signing side) that checks the authorization request (client,
 * redirect URI, S256 challenge), and at its token endpoint the client secret and the PKCE
 * verifier, then issues an RS256 ID token. The gateway admits only when the state is the
 * device's and the ID token verifies (JWKS signature, issuer, audience, expiry, nonce).
 */

const CLIENT_ID = 'portico-gw';
const CLIENT_SECRET = 'op-client-secret-42';
const CLIENT = '192.168.11.100';
const CLIENT_MAC = '02:00:c0:a8:0b:64';

type Mode = 'ok' | 'deny' | 'badsig' | 'badaud' | 'expired' | 'badnonce' | 'down';

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

class LocalOpenIdProvider {
  private server: Server | null = null;
  port = 0;
  mode: Mode = 'ok';
  sub = 'user-123';
  private key!: CryptoKey;
  private otherKey!: CryptoKey;
  private jwk!: JWK;
  /** Issued codes: what the authorization request asked for. */
  private readonly codes = new Map<string, { redirectUri: string; challenge: string; nonce: string }>();
  readonly tokenCalls: URLSearchParams[] = [];
  now = () => Date.now();

  get issuer(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    this.key = privateKey;
    this.jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    // A key the JWKS does not publish: what it signs must not verify.
    this.otherKey = (await generateKeyPair('RS256')).privateKey;
    this.server = createServer((req, res) => void this.handle(req, res).catch(() => res.writeHead(500).end()));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.mode === 'down') {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', this.issuer);
    const send = (status: number, value: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      return send(200, { issuer: this.issuer, authorization_endpoint: `${this.issuer}/authorize`, token_endpoint: `${this.issuer}/token`, jwks_uri: `${this.issuer}/jwks`, id_token_signing_alg_values_supported: ['RS256'] });
    }
    if (url.pathname === '/jwks') return send(200, { keys: [this.jwk] });
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== CLIENT_ID || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('scope')?.split(' ').includes('openid')) return send(400, { error: 'invalid_request' });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('state', q.get('state')!);
      if (this.mode === 'deny') back.searchParams.set('error', 'access_denied');
      else {
        const code = createHash('sha256').update(String(Math.random())).digest('hex');
        this.codes.set(code, { redirectUri: q.get('redirect_uri')!, challenge: q.get('code_challenge')!, nonce: q.get('nonce')! });
        back.searchParams.set('code', code);
      }
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await body(req));
      this.tokenCalls.push(form);
      const auth = req.headers.authorization ?? '';
      if (auth !== `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`) return send(401, { error: 'invalid_client' });
      const issued = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!issued || issued.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier).digest('base64url') !== issued.challenge) return send(400, { error: 'invalid_grant' });
      const seconds = Math.floor(this.now() / 1000);
      const token = await new SignJWT({ nonce: this.mode === 'badnonce' ? 'other-nonce' : issued.nonce, email: 'user@example.org' })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(this.issuer)
        .setSubject(this.sub)
        .setAudience(this.mode === 'badaud' ? 'someone-else' : CLIENT_ID)
        .setIssuedAt(this.mode === 'expired' ? seconds - 7200 : seconds)
        .setExpirationTime(this.mode === 'expired' ? seconds - 3600 : seconds + 300)
        .sign(this.mode === 'badsig' ? this.otherKey : this.key);
      return send(200, { access_token: 'at', token_type: 'Bearer', id_token: token, expires_in: 300 });
    }
    send(404, { error: 'not_found' });
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let h: Harness;
let admin: Client;
const op = new LocalOpenIdProvider();
const dataplane = new SimDataplane();

beforeAll(async () => {
  await op.start();
  h = await startDaemon({ env: { PORTICO_LAN_PORTS: 'eth1' }, deps: { hotspot: { dataplane } } });
  op.now = h.clock.now;
  admin = await adminClient(h);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await op.close();
});

const save = async (b: Record<string, unknown>) => json(await post(h.app, admin, `/api/${hotspotSocial.path}`, b));
const engine = () => h.app.hotspot.engine;
const portal = () => h.app.hotspot.portal;

const captive = (ip = CLIENT) => captiveLocation(portal(), ip);
const atProvider = followRedirect;
const back = (location: string, ip = CLIENT) => backAtGateway(portal(), location, ip);

describe('settings', () => {
  test('refusals, the secret never read back', async () => {
    expect(await save({ provider: 'Bad Name' })).toMatchObject({ success: false, errors: { provider: 'validation.social.provider' } });
    expect(await save({ scope: 'profile email' })).toMatchObject({ success: false, errors: { scope: 'validation.social.scope' } });
    expect(await save({ issuer: 'ftp://op.example' })).toMatchObject({ success: false, errors: { issuer: 'validation.url' } });
    expect((await save({ provider: 'local', issuer: op.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET, scope: 'openid email' })).success).toBe(true);
    expect(JSON.stringify(json(await get(h.app, admin, `/api/${hotspotSocial.path}`)).data)).not.toContain(CLIENT_SECRET);
    const zone = { action: 'add', name: 'social', ifname: 'lan', authmodel: 'social', authtime: 1, authtime_unit: 'days' };
    expect(json(await post(h.app, admin, '/api/auth/zone', zone)).success).toBe(true);
  });
});

describe('a zone of auth model social', () => {
  test('the captive redirect is the authorization request: code, PKCE S256, state, nonce, the callback route', async () => {
    const location = await captive();
    expect(location.startsWith(`${op.issuer}/authorize?`)).toBe(true);
    const q = new URL(location).searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe(CLIENT_ID);
    expect(q.get('redirect_uri')).toBe('http://192.168.11.1:2050/auth/local/callback');
    expect(q.get('scope')).toBe('openid email');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location).not.toContain(CLIENT_SECRET);
  });

  test('a verified ID token admits the client through the engine; the state is spent', async () => {
    op.mode = 'ok';
    const callback = await atProvider(await captive());
    const reply = await back(callback);
    expect(reply.statusCode, reply.body).toBe(302);
    expect(reply.headers.location).toBe(`http://192.168.11.1:2050/auth/success?url=${encodeURIComponent('http://example.com/page')}`);
    expect(engine().session(CLIENT)).toMatchObject({ kind: 'social', account: 'social:local:user-123', mac: CLIENT_MAC });
    expect(JSON.stringify(json(await get(h.app, admin, '/api/hotspot/online')).data)).toContain('"kind":"social"');
    // The token request carried the PKCE verifier of the challenge.
    expect(op.tokenCalls.at(-1)?.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await engine().kick(CLIENT, 'logout');
    const replay = await back(callback);
    expect(replay.statusCode).toBe(302);
    expect(replay.headers.location).toBe('/auth/portal?error=portal.error.socialAuth');
    expect(engine().session(CLIENT)).toBeUndefined();
  });

  test('§8: consent refused, bad signature, wrong audience, expired, wrong nonce give the authorisation error', async () => {
    for (const mode of ['deny', 'badsig', 'badaud', 'expired', 'badnonce'] as const) {
      op.mode = mode;
      const reply = await back(await atProvider(await captive()));
      expect(reply.statusCode, `${mode}: ${reply.body}`).toBe(302);
      expect(portalErrorOf(reply), mode).toBe('portal.error.socialAuth');
      expect(engine().session(CLIENT), mode).toBeUndefined();
    }
    op.mode = 'ok';
  });

  test('§8: bad state (another device\'s, unknown, late) and an unreachable provider', async () => {
    op.mode = 'ok';
    const other = await back(await atProvider(await captive()), '192.168.11.101');
    expect(portalErrorOf(other)).toBe('portal.error.socialAuth');
    const forged = await back('http://192.168.11.1:2050/auth/local/callback?state=' + 'A'.repeat(43) + '&code=abc', '192.168.11.102');
    expect(portalErrorOf(forged)).toBe('portal.error.socialAuth');
    const late = await atProvider(await captive('192.168.11.103'));
    h.clock.advance(601);
    expect(portalErrorOf(await back(late, '192.168.11.103'))).toBe('portal.error.socialAuth');
    // Another provider name is not a callback of this gateway.
    expect(portalErrorOf(await back('http://192.168.11.1:2050/auth/other/callback?state=x', '192.168.11.102'))).toBe('portal.error.notConfigured');
    const callback = await atProvider(await captive('192.168.11.104'));
    op.mode = 'down';
    const down = await back(callback, '192.168.11.104');
    expect(portalErrorOf(down)).toBe('portal.error.socialNetwork');
    expect(engine().session('192.168.11.104')).toBeUndefined();
    op.mode = 'ok';
  });

  test('guessing: a parallel burst of forged states checks at most five, then a genuine return is refused too', async () => {
    const ip = '192.168.11.105';
    const forged = Array.from({ length: 12 }, (_, i) => `http://192.168.11.1:2050/auth/local/callback?state=${String(i).padStart(43, 'B')}&code=abc`);
    const replies = await Promise.all(forged.map((f) => back(f, ip)));
    expect(replies.filter((r) => portalErrorOf(r) === 'portal.error.socialAuth').length).toBeLessThanOrEqual(5);
    expect(replies.filter((r) => portalErrorOf(r) === 'portal.error.tooMany').length).toBeGreaterThanOrEqual(7);
    const right = await back(await atProvider(await captive(ip)), ip);
    expect(portalErrorOf(right)).toBe('portal.error.tooMany');
    expect(engine().session(ip)).toBeUndefined();
  });
});
