#!/usr/bin/env node
// mmdebstrap setup hook, run as a file (no shell): makes the bootstrap's apt archive folder so
// the build's cached .debs can be synced into it before the first download. mmdebstrap passes
// the root folder being bootstrapped as the first argument.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const root = process.argv[2];
if (!root) throw new Error('usage: mmdebstrap-apt-cache-dir.mjs <bootstrap root>');
mkdirSync(join(root, 'var/cache/apt/archives/partial'), { recursive: true });
