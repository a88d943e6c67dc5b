// The upstream's HTTP server in the VM tier: answers every request with the address it came
// from, so a test sees whether the gateway's NAT rewrote a LAN client's source.
import { createServer } from 'node:http';

const [host, port] = process.argv.slice(2);
const server = createServer((request, response) => {
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ remote: request.socket.remoteAddress?.replace(/^::ffff:/, '') }));
});
server.listen(Number(port), host, () => process.stdout.write(`listening ${port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
