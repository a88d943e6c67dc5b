// A byte relay between a listening and a connecting endpoint, each `tcp:<host>:<port>` or
// `unix:<path>`. Two of them, one inside the LAN client's namespace and one on the host's
// loopback, joined by a unix socket (a path, which no namespace hides), forward a host port to
// the gateway's console. Prints `listening <port or path>` once it accepts.
import { createServer, connect } from 'node:net';
import { rmSync } from 'node:fs';

function endpoint(text) {
  const unix = /^unix:(.+)$/.exec(text);
  if (unix) return { path: unix[1] };
  const tcp = /^tcp:([^:]+):(\d+)$/.exec(text);
  if (tcp) return { host: tcp[1], port: Number(tcp[2]) };
  throw new Error(`not an endpoint: ${text}`);
}

const [listenText, connectText] = process.argv.slice(2);
const listenAt = endpoint(listenText);
const connectTo = endpoint(connectText);
if (listenAt.path) rmSync(listenAt.path, { force: true });

const server = createServer((inbound) => {
  const outbound = connect(connectTo);
  inbound.pipe(outbound).pipe(inbound);
  const close = () => {
    inbound.destroy();
    outbound.destroy();
  };
  inbound.on('error', close);
  outbound.on('error', close);
});
server.listen(listenAt.path ? { path: listenAt.path } : { host: listenAt.host, port: listenAt.port }, () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'string' ? address : address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
