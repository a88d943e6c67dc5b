// How the daemon process is started, in one place. V8 and glibc read these only at process
// start, so every launcher (npm start, the e2e harness, the benchmarks, a service unit) must
// pass them: `spawn(process.execPath, [...DAEMON_NODE_FLAGS, 'apps/daemon/dist/main.mjs'],
// { env: { ...process.env, ...DAEMON_ENV } })`. Without them the daemon works the same and
// only uses more memory. Figures are in apps/daemon/README.md ("Memory").

/**
 * Node/V8 options.
 * - --max-semi-space-size=1: young generation of 2 x 1 MiB. The default lets it grow to
 *   16 MiB per half; start-up alone grows it to 8 MiB that stay resident while idle, and under
 *   load it holds ~15 MiB more.
 * - --interrupt-budget=270336 (4x the default): a function must run four times longer before
 *   V8 considers it for the optimising compiler. Code that runs once at start-up (zod schema
 *   construction, route registration, the simulator's back-fill) then never reaches it, which
 *   keeps the compiler's code and memory out of an idle daemon; request handlers still get
 *   optimised within the first seconds of load.
 * Measured together on a request loop: CPU per request at steady load unchanged, about 0.4 s
 * more CPU over the first 10 000 requests.
 */
export const DAEMON_NODE_FLAGS = Object.freeze(['--max-semi-space-size=1', '--interrupt-budget=270336']);

/**
 * Environment for the daemon process (glibc malloc).
 * - MALLOC_MMAP_THRESHOLD_=131072 (glibc's default, made fixed): the dynamic threshold rises
 *   after the first large free (the 1 MB bundle source), so the parser's temporary memory
 *   while the bundle compiles (several MiB) lands in the heap, where later allocations pin it:
 *   with a small young generation that happened on most starts and cost 6-9 MiB.
 * - MALLOC_ARENA_MAX=2: V8's helper threads share one arena instead of one each (an arena's
 *   leftovers are otherwise never shared); the daemon is a single JavaScript thread.
 */
export const DAEMON_ENV = Object.freeze({ MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_ARENA_MAX: '2' });
