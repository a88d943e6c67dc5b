// The upstream's HTTP server in the VM tier: answers every request with the address it came
// from, so a test sees whether the gateway's NAT rewrote a LAN client's source. Given a folder
// (third argument), it is also the update server: GET /firmware/<name> streams that file.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const [host, port, firmwareDir] = process.argv.slice(2);
const FILE = /^\/firmware\/([\w][\w.-]{0,127})$/;

const server = createServer((request, response) => {
  const name = firmwareDir ? FILE.exec(request.url ?? '')?.[1] : undefined;
  if (name !== undefined) {
    const file = join(firmwareDir, name);
    let size;
    try {
      size = statSync(file).size;
    } catch {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': name.endsWith('.json') ? 'application/json' : 'application/octet-stream', 'content-length': size });
    createReadStream(file).pipe(response);
    return;
  }
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({ remote: request.socket.remoteAddress?.replace(/^::ffff:/, '') }));
});
server.listen(Number(port), host, () => process.stdout.write(`listening ${port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
