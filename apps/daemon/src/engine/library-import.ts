/**
 * The exports of a library loaded with `import()`. Node hands over an ES module's exports, or a
 * CommonJS module's with its `module.exports` as `default` beside them; the daemon's bundle
 * loads such a library from a chunk of its own (build.mjs, dist/lazy/), which carries
 * `module.exports` as `default` only. Both read the same here.
 */
export function libraryExports<T extends object>(namespace: T): T {
  const keys = Object.keys(namespace).filter((key) => key !== '__esModule');
  if (keys.length === 1 && keys[0] === 'default') return (namespace as unknown as { default: T }).default;
  return namespace;
}
