/**
 * Builds one language's resources from its namespace files. A namespace file `menu.json`
 * holding `{ "interface": "Interface" }` gives the key `menu.interface`.
 */
export type Resources = Record<string, unknown>;

export function bundle(namespaces: Record<string, Resources>): Resources {
  const out: Resources = {};
  for (const [ns, content] of Object.entries(namespaces)) out[ns] = content;
  return out;
}

/** Flattens nested resources to dotted keys: `{a:{b:'x'}}` -> `{'a.b':'x'}`. */
export function flatten(resources: Resources, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(resources)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === 'object') Object.assign(out, flatten(value as Resources, path));
    else out[path] = String(value);
  }
  return out;
}
