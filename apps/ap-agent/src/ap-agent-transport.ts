import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import WebSocket from 'ws';
import { UCENTRAL_MAX_MESSAGE_BYTES, webSocketLink, type UcentralLink } from '@portico/schema';
import type { ControllerTarget } from './ap-agent-main.js';

/**
 * The device's end of the uCentral transport: a TLS WebSocket to the controller, presenting the
 * device certificate and trusting only the device CA for the controller's own. The files are
 * read at each dial, so a certificate replaced on disk is used at the next reconnection.
 */

/** The subprotocol OpenWiFi controllers expect. */
const SUBPROTOCOL = 'ucentral-broker';
/** TCP connect, TLS and the upgrade together; a controller slower than this is retried later. */
const DIAL_TIMEOUT_MS = 15_000;

/** Opens one link to the controller; rejects when it cannot be reached or refuses the device. */
export async function dialController(target: ControllerTarget): Promise<UcentralLink> {
  const [cert, key, ca] = await Promise.all([readFile(target.tls.cert), readFile(target.tls.key), readFile(target.tls.ca)]);
  const host = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
  const ws = new WebSocket(`wss://${host}:${target.port}/`, SUBPROTOCOL, {
    cert,
    key,
    ca,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.2',
    handshakeTimeout: DIAL_TIMEOUT_MS,
    maxPayload: UCENTRAL_MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => {
      ws.off('open', opened);
      ws.terminate();
      reject(error);
    };
    const refused = (_request: unknown, response: { statusCode?: number }) => failed(new Error(`controller answered ${response.statusCode ?? 'no status'}`));
    const opened = () => {
      ws.off('error', failed);
      ws.off('unexpected-response', refused);
      resolve();
    };
    ws.once('open', opened);
    ws.once('error', failed);
    ws.once('unexpected-response', refused);
  });
  return webSocketLink(ws, '', `${host}:${target.port}`);
}
