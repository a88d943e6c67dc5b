/**
 * The daemon's layers (README "The house"), checked by dependency-cruiser in npm test
 * (test/dependency-rules.test.ts): main → app → domain list → domains → config → engine →
 * plugins/settings, drivers beside config. No arrow points back up, and a domain reaches
 * another only through that domain's public face (`<domain>-public.ts` or its module).
 */
const DOMAIN_LIST = '^src/(domain-list|app|main)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'core-never-imports-a-domain',
      comment: 'engine, config, plugins and drivers know no domain: a domain plugs in through the contract',
      severity: 'error',
      from: { path: '^src/(engine|config|plugins|drivers|floor)/|^src/(app-context|settings)\\.ts$' },
      to: { path: ['^src/domains/', DOMAIN_LIST] },
    },
    {
      name: 'domains-never-import-the-list',
      comment: 'a domain is listed, it does not list: no domain imports the list, the app or main',
      severity: 'error',
      from: { path: '^src/domains/' },
      to: { path: DOMAIN_LIST },
    },
    {
      name: 'engine-below-config',
      comment: 'the engine (file install, formats, commands) knows nothing of configuration, drivers or the app',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^src/(config|drivers)/|^src/app-context\\.ts$' },
    },
    {
      name: 'plugins-at-the-bottom',
      comment: 'plugins (db, sessions, guard, envelope) import only each other and settings',
      severity: 'error',
      from: { path: '^src/plugins/' },
      to: { path: '^src/(engine|config|drivers)/|^src/app-context\\.ts$' },
    },
    {
      name: 'drivers-below-config',
      comment: 'drivers say where files go and how live status is read; they know no configuration engine',
      severity: 'error',
      from: { path: '^src/drivers/' },
      to: { path: '^src/config/|^src/app-context\\.ts$' },
    },
    {
      name: 'domains-meet-through-public-faces',
      comment: 'a domain imports another domain only through its public face or its module',
      severity: 'error',
      from: { path: '^src/domains/([^/]+)/' },
      to: { path: '^src/domains/', pathNot: ['^src/domains/$1/', '^src/domains/[^/]+/[a-z-]+-(public|module)\\.ts$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: require('node:path').join(__dirname, '..', '..', 'tsconfig.base.json') },
  },
};
