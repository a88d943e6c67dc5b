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
 * - MALLOC_MMAP_THRESHOLD_=32768: blocks of 32 KiB and more get their own mapping, returned to
 *   the system when freed. While the 1 MB bundle compiles, V8's parser takes several MiB in
 *   blocks of about that size and frees them; from the shared heap they could only go back
 *   from its top, and a small allocation made meanwhile above them pinned them there. With
 *   glibc's default (128 KiB, and rising after the first large free) four starts in ten idled
 *   at 80 MB instead of 70; with 32 KiB, ten in ten at 70.
 * - MALLOC_ARENA_MAX=2: V8's helper threads share one arena instead of one each (an arena's
 *   leftovers are otherwise never shared); the daemon is a single JavaScript thread.
 */
export const DAEMON_ENV = Object.freeze({ MALLOC_MMAP_THRESHOLD_: '32768', MALLOC_ARENA_MAX: '2' });
