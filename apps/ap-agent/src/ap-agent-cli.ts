import { execaRunner } from './ap-agent-command.js';
import { flashAgentImage } from './ap-agent-flash.js';
import { runAgentCli } from './ap-agent-main.js';
import { readAgentSettings } from './ap-agent-settings.js';
import { dialController } from './ap-agent-transport.js';
import { AGENT_VERSION } from './ap-agent-version.js';

/**
 * `portico-agent [settings.json]`: the agent as procd (OpenWrt) or systemd (Debian) runs it,
 * over the TLS WebSocket transport. The settings file is the argument, else
 * PORTICO_AGENT_SETTINGS, else /etc/portico-agent/agent.json.
 * `portico-agent --version`: its version, one line.
 * `portico-agent flash <settings.json> <image>`: a Debian AP's flash step (ap-agent-flash.ts).
 */
const [first, ...rest] = process.argv.slice(2);
if (first === '--version') process.stdout.write(`${AGENT_VERSION}\n`);
else if (first === 'flash') {
  const [settingsPath, image] = rest;
  if (!settingsPath || !image) {
    process.stderr.write('usage: portico-agent flash <settings.json> <image>\n');
    process.exit(2);
  }
  try {
    const settings = await readAgentSettings(settingsPath, process.env);
    const version = await flashAgentImage(image, settings.flash, execaRunner);
    process.stdout.write(`portico-agent: ${version} installed as ${settings.flash.program}\n`);
  } catch (error) {
    process.stderr.write(`portico-agent: flash failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
} else await runAgentCli(dialController, first ?? (process.env.PORTICO_AGENT_SETTINGS?.trim() || undefined));
