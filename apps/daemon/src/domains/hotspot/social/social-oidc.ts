import { createHash, randomBytes } from 'node:crypto';
import type { createRemoteJWKSet, JWTPayload } from 'jose';

/**
 * The OpenID Connect client side of social login (README.md): discovery, the authorization
 * request with PKCE (S256), the code exchange and the ID token check (signature against the
 * provider's JWKS, issuer, audience, expiry, nonce). Every answer of the provider is hostile
 * input: sizes are bounded, types checked, and the browser is only ever sent to the issuer's host.
 */

const FETCH_MS = 5_000;
const MAX_BODY = 65_536;
const DISCOVERY_MS = 600_000;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

/** The provider could not be reached or answered something that is not the protocol. */
export class ProviderUnreachable extends Error {}
/** The provider's answer refuses the sign-in or does not verify. */
export class ProviderRefused extends Error {}

function httpUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 2048) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && url.hash === '';
  } catch {
    return false;
  }
}

async function readJson(response: Response): Promise<unknown> {
  const length = Number(response.headers.get('content-length') ?? '0');
  if (length > MAX_BODY) throw new ProviderUnreachable('answer too large');
  const text = await response.text();
  if (text.length > MAX_BODY) throw new ProviderUnreachable('answer too large');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderUnreachable('answer is not JSON');
  }
}

async function send(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(FETCH_MS) });
  } catch (error) {
    throw new ProviderUnreachable(error instanceof Error ? error.message : 'fetch failed');
  }
}

export const base64url = (bytes: Buffer) => bytes.toString('base64url');
export const pkceChallenge = (verifier: string) => base64url(createHash('sha256').update(verifier, 'ascii').digest());
export const randomToken = () => base64url(randomBytes(32));

export class OidcClient {
  private discovered: { issuer: string; at: number; metadata: ProviderMetadata } | null = null;
  private jwks: { uri: string; set: ReturnType<typeof createRemoteJWKSet> } | null = null;

  constructor(private readonly now: () => number) {}

  /** The provider's discovery document, cached ten minutes; its issuer must be the configured one. */
  async metadata(issuer: string): Promise<ProviderMetadata> {
    const cached = this.discovered;
    if (cached && cached.issuer === issuer && this.now() - cached.at < DISCOVERY_MS) return cached.metadata;
    const response = await send(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new ProviderUnreachable(`discovery answered ${response.status}`);
    const doc = (await readJson(response)) as Record<string, unknown> | null;
    if (!doc || typeof doc !== 'object') throw new ProviderUnreachable('discovery is not an object');
    const { authorization_endpoint, token_endpoint, jwks_uri } = doc;
    if (doc.issuer !== issuer) throw new ProviderUnreachable('discovery names another issuer');
    if (!httpUrl(authorization_endpoint) || !httpUrl(token_endpoint) || !httpUrl(jwks_uri)) throw new ProviderUnreachable('discovery endpoints are not http(s) URLs');
    // The browser is sent to the authorization endpoint: only on the configured issuer's host.
    if (new URL(authorization_endpoint).host !== new URL(issuer).host) throw new ProviderUnreachable('authorization endpoint is not on the issuer\'s host');
    const metadata = { issuer, authorization_endpoint, token_endpoint, jwks_uri };
    this.discovered = { issuer, at: this.now(), metadata };
    return metadata;
  }

  authorizationUrl(metadata: ProviderMetadata, request: { clientId: string; redirectUri: string; scope: string; state: string; nonce: string; verifier: string }): string {
    const url = new URL(metadata.authorization_endpoint);
    const params: Array<[string, string]> = [
      ['response_type', 'code'],
      ['client_id', request.clientId],
      ['redirect_uri', request.redirectUri],
      ['scope', request.scope],
      ['state', request.state],
      ['nonce', request.nonce],
      ['code_challenge', pkceChallenge(request.verifier)],
      ['code_challenge_method', 'S256'],
    ];
    for (const [k, v] of params) url.searchParams.set(k, v);
    return url.toString();
  }

  /** Exchanges the code (client_secret_basic, PKCE verifier) and verifies the ID token; returns its claims. */
  async exchange(
    metadata: ProviderMetadata,
    request: { clientId: string; clientSecret: string; redirectUri: string; code: string; verifier: string; nonce: string },
  ): Promise<JWTPayload & { sub: string }> {
    const basic = Buffer.from(`${encodeURIComponent(request.clientId)}:${encodeURIComponent(request.clientSecret)}`).toString('base64');
    const response = await send(metadata.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: request.code, redirect_uri: request.redirectUri, code_verifier: request.verifier }).toString(),
    });
    if (response.status === 400 || response.status === 401) throw new ProviderRefused(`token endpoint answered ${response.status}`);
    if (!response.ok) throw new ProviderUnreachable(`token endpoint answered ${response.status}`);
    const body = (await readJson(response)) as Record<string, unknown> | null;
    const idToken = body && typeof body === 'object' ? body.id_token : undefined;
    if (typeof idToken !== 'string' || idToken.length > 16_384) throw new ProviderRefused('no ID token');
    // jose is loaded at the first social sign-in, not at every start.
    const { createRemoteJWKSet, errors: joseErrors, jwtVerify } = await import('jose');
    if (this.jwks?.uri !== metadata.jwks_uri) this.jwks = { uri: metadata.jwks_uri, set: createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: FETCH_MS }) };
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, this.jwks.set, {
        issuer: metadata.issuer,
        audience: request.clientId,
        algorithms: ALGORITHMS,
        requiredClaims: ['sub', 'exp', 'iat', 'nonce'],
        currentDate: new Date(this.now()),
        clockTolerance: 60,
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWKSTimeout || !(error instanceof joseErrors.JOSEError)) throw new ProviderUnreachable('keys could not be read');
      throw new ProviderRefused(error.code);
    }
    if (payload.nonce !== request.nonce) throw new ProviderRefused('nonce mismatch');
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== request.clientId) throw new ProviderRefused('azp mismatch');
    if (typeof payload.sub !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(payload.sub)) throw new ProviderRefused('bad subject');
    return payload as JWTPayload & { sub: string };
  }
}
