import { describe, expect, test } from 'vitest';
import {
  MAX_PACKET_BYTES,
  PORTAL_ATTR,
  PORTAL_TYPE,
  chapMatches,
  chapResponse,
  decodePortalPacket,
  encodePortalPacket,
  fluxAttribute,
  portalAttribute,
  textAttribute,
  type PortalPacket,
} from '../src/domains/hotspot/cmcc/cmcc-packet.js';

/** The China Mobile portal protocol's packet codec: layout, v2 authenticator, refusal codes. */

const SECRET = 's3cret';

function authRequest(version: 1 | 2): Omit<PortalPacket, 'authenticator'> {
  return {
    version,
    type: PORTAL_TYPE.REQ_AUTH,
    method: 'chap',
    serialNo: 0x1234,
    reqId: 0x0102,
    userIp: '10.0.0.5',
    userPort: 0,
    errCode: 0,
    attributes: [textAttribute(PORTAL_ATTR.UserName, 'alice'), { type: PORTAL_ATTR.ChapPassWord, value: Buffer.alloc(16, 7) }],
  };
}

describe('portal packet layout', () => {
  test('a v1 packet is the 16-byte header then type-length-value attributes', () => {
    const bytes = encodePortalPacket(authRequest(1));
    expect(bytes.subarray(0, 16).toString('hex')).toBe('01030000123401020a00000500000002');
    // UserName: type 1, length 2 + 5.
    expect(bytes.subarray(16, 23).toString('hex')).toBe('0107' + Buffer.from('alice').toString('hex'));
    expect(bytes[23]).toBe(PORTAL_ATTR.ChapPassWord);
    expect(bytes[24]).toBe(18);
    expect(bytes.length).toBe(16 + 7 + 18);
    const decoded = decodePortalPacket(bytes, { version: 1 });
    expect(decoded.ok && decoded.packet).toMatchObject({ ...authRequest(1), authenticator: undefined });
  });

  test('a v2 request carries MD5(header, 16 zero bytes, attributes, secret)', () => {
    const bytes = encodePortalPacket(
      { version: 2, type: PORTAL_TYPE.REQ_CHALLENGE, method: 'chap', serialNo: 0x1234, reqId: 0, userIp: '10.0.0.5', userPort: 0, errCode: 0, attributes: [] },
      { secret: SECRET },
    );
    expect(bytes.length).toBe(32);
    // Known answer computed independently: md5(02 01 00 00 12 34 00 00 0a 00 00 05 00 00 00 00 | 00*16 | "s3cret").
    expect(bytes.subarray(16, 32).toString('hex')).toBe('fdf36f5570604a9f2864fa2530207df9');
    expect(decodePortalPacket(bytes, { version: 2, secret: SECRET }).ok).toBe(true);
  });

  test('a v2 response is signed over the request authenticator and verified against it', () => {
    const request = encodePortalPacket(authRequest(2), { secret: SECRET });
    const requestAuthenticator = request.subarray(16, 32);
    const response = encodePortalPacket(
      { ...authRequest(2), type: PORTAL_TYPE.ACK_AUTH, attributes: [] },
      { secret: SECRET, requestAuthenticator },
    );
    expect(decodePortalPacket(response, { version: 2, secret: SECRET, requestAuthenticator }).ok).toBe(true);
    expect(decodePortalPacket(response, { version: 2, secret: SECRET })).toEqual({ ok: false, code: 'bad-authenticator' });
  });

  test('a wrong secret, a changed byte or a missing secret fail the v2 check', () => {
    const bytes = encodePortalPacket(authRequest(2), { secret: SECRET });
    expect(decodePortalPacket(bytes, { version: 2, secret: 'other' })).toEqual({ ok: false, code: 'bad-authenticator' });
    expect(decodePortalPacket(bytes, { version: 2 })).toEqual({ ok: false, code: 'bad-authenticator' });
    const tampered = Buffer.from(bytes);
    tampered.writeUInt8(tampered.readUInt8(11) ^ 1, 11);
    expect(decodePortalPacket(tampered, { version: 2, secret: SECRET })).toEqual({ ok: false, code: 'bad-authenticator' });
  });

  test('flux attributes are 8-byte kilobyte counts', () => {
    expect(fluxAttribute(PORTAL_ATTR.UpLinkFlux, 5 * 1024 + 1000).value.toString('hex')).toBe('0000000000000005');
  });
});

describe('malformed packets are refused with a code', () => {
  const valid = encodePortalPacket(authRequest(1));

  test.each([
    ['empty', Buffer.alloc(0), 'too-short'],
    ['shorter than the header', valid.subarray(0, 15), 'too-short'],
    ['oversized', Buffer.concat([valid, Buffer.alloc(MAX_PACKET_BYTES)]), 'too-long'],
    ['another version', Buffer.concat([Buffer.from([2]), valid.subarray(1)]), 'bad-version'],
    ['unknown type', Buffer.concat([valid.subarray(0, 1), Buffer.from([0x55]), valid.subarray(2)]), 'bad-type'],
    ['unknown PAP/CHAP byte', Buffer.concat([valid.subarray(0, 2), Buffer.from([9]), valid.subarray(3)]), 'bad-method'],
    ['cut inside an attribute', valid.subarray(0, valid.length - 3), 'attribute-truncated'],
    ['cut between attributes', valid.subarray(0, 23), 'attribute-truncated'],
    ['attribute length below 2', Buffer.concat([valid.subarray(0, 17), Buffer.from([1]), valid.subarray(18)]), 'attribute-length'],
    ['bytes after the attributes', Buffer.concat([valid, Buffer.from([1, 2, 0x41])]), 'attribute-count'],
    ['fewer attributes than AttrNum says', Buffer.concat([valid.subarray(0, 15), Buffer.from([3]), valid.subarray(16)]), 'attribute-truncated'],
  ])('%s', (_name, bytes, code) => {
    expect(decodePortalPacket(bytes, { version: 1 })).toEqual({ ok: false, code });
  });

  test('a Challenge or ChapPassWord that is not 16 bytes', () => {
    const bytes = encodePortalPacket({ ...authRequest(1), attributes: [{ type: PORTAL_ATTR.Challenge, value: Buffer.alloc(15) }] });
    expect(decodePortalPacket(bytes, { version: 1 })).toEqual({ ok: false, code: 'attribute-value' });
  });

  test('random bytes never throw', () => {
    // A fixed linear congruential sequence keeps the run reproducible.
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (let i = 0; i < 2000; i++) {
      const bytes = Buffer.alloc(next() % 80);
      for (let j = 0; j < bytes.length; j++) bytes[j] = next() & 0xff;
      if (bytes.length > 0) bytes[0] = (i % 2) + 1;
      for (const version of [1, 2] as const) {
        const result = decodePortalPacket(bytes, { version, secret: SECRET });
        expect(typeof result.ok).toBe('boolean');
      }
    }
  });
});

describe('CHAP', () => {
  test('the response is MD5(low byte of ReqID, password, challenge)', () => {
    const challenge = Buffer.from([...Array(16).keys()]);
    // Known answer computed independently: md5(01 | "pw" | 00..0f).
    expect(chapResponse(0x0301, 'pw', challenge).toString('hex')).toBe('0561a2c95c3a5128b04a36c0adc33486');
    expect(chapMatches(0x0301, 'pw', challenge, chapResponse(0x0301, 'pw', challenge))).toBe(true);
    expect(chapMatches(0x0301, 'px', challenge, chapResponse(0x0301, 'pw', challenge))).toBe(false);
    expect(chapMatches(0x0301, 'pw', challenge, Buffer.alloc(3))).toBe(false);
  });

  test('attributes are read back by type', () => {
    const decoded = decodePortalPacket(encodePortalPacket(authRequest(1)), { version: 1 });
    expect(decoded.ok && portalAttribute(decoded.packet, PORTAL_ATTR.UserName)?.toString()).toBe('alice');
  });
});
