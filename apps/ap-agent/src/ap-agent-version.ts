/**
 * The agent's own version, stamped into the bundle by build.mjs (the package's version, or
 * PORTICO_AGENT_VERSION for a release build). Unbundled (the unit tests) it is `dev`.
 */
declare const __PORTICO_AGENT_VERSION__: string | undefined;

export const AGENT_VERSION: string = typeof __PORTICO_AGENT_VERSION__ === 'string' ? __PORTICO_AGENT_VERSION__ : 'dev';
