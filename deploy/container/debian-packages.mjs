// Installs Debian packages inside an image build in one step and leaves no package lists
// behind in the layer: apt-get update, apt-get install --no-install-recommends, then the lists
// removed. Each command is an argument array (no shell). Usage, in a Dockerfile:
//   RUN --mount=type=bind,source=deploy/container/debian-packages.mjs,target=/mnt/debian-packages.mjs \
//       ["node", "/mnt/debian-packages.mjs", "iproute2", "nftables"]
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const LISTS = '/var/lib/apt/lists';

function run(argv) {
  const result = spawnSync(argv[0], argv.slice(1), { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    process.stderr.write(`${argv.join(' ')} failed (exit ${result.status})\n`);
    process.exit(result.status ?? 1);
  }
}

const packages = process.argv.slice(2);
if (packages.length === 0) {
  process.stderr.write('usage: node debian-packages.mjs <package>...\n');
  process.exit(2);
}
run(['apt-get', 'update', '-qq']);
run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...packages]);
for (const entry of readdirSync(LISTS)) {
  if (entry !== 'lock' && entry !== 'partial') rmSync(join(LISTS, entry), { recursive: true, force: true });
}
