export const DAEMON_NODE_FLAGS: readonly string[];
export const DAEMON_ENV: Readonly<Record<string, string>>;
