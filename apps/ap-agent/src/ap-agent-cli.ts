import { runAgentCli } from './ap-agent-main.js';
import { dialController } from './ap-agent-transport.js';

/**
 * `portico-agent [settings.json]`: the agent as procd (OpenWrt) or systemd (Debian) runs it,
 * over the TLS WebSocket transport. The settings file is the argument, else
 * PORTICO_AGENT_SETTINGS, else /etc/portico-agent/agent.json.
 */
await runAgentCli(dialController, process.argv[2] ?? (process.env.PORTICO_AGENT_SETTINGS?.trim() || undefined));
