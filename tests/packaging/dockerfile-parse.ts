/**
 * Just enough of the Dockerfile and .dockerignore formats to check what an image build reads
 * and runs: stages, instructions with their flags, exec-form arguments, ENV pairs, and which
 * context paths an ignore file leaves out.
 */

export interface Instruction {
  keyword: string;
  /** `--name=value` flags before the arguments, in order (RUN may repeat --mount). */
  flags: [string, string][];
  /** The arguments as written, flags removed. */
  args: string;
  /** The JSON array of an exec-form RUN, CMD, ENTRYPOINT or HEALTHCHECK CMD. */
  exec?: string[];
}

export interface Stage {
  name?: string;
  base: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARG defaults declared before the first FROM. */
  globalArgs: Record<string, string>;
  stages: Stage[];
}

/** Physical lines joined at a trailing backslash; comment and blank lines dropped. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('#') || line === '') continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    out.push(pending + line);
    pending = '';
  }
  if (pending.trim()) out.push(pending.trim());
  return out;
}

function parseInstruction(line: string): Instruction {
  const [keyword = '', ...restParts] = line.split(/\s+/);
  let rest = restParts.join(' ');
  const flags: [string, string][] = [];
  for (let flag = /^--([a-z-]+)=(\S+)\s*/.exec(rest); flag; flag = /^--([a-z-]+)=(\S+)\s*/.exec(rest)) {
    flags.push([flag[1]!, flag[2]!]);
    rest = rest.slice(flag[0].length);
  }
  const upper = keyword.toUpperCase();
  const execText = upper === 'HEALTHCHECK' ? rest.replace(/^CMD\s+/, '') : rest;
  const exec = execText.startsWith('[') ? (JSON.parse(execText) as string[]) : undefined;
  return { keyword: upper, flags, args: rest, exec };
}

export function parseDockerfile(text: string): Dockerfile {
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of logicalLines(text)) {
    const instruction = parseInstruction(line);
    if (instruction.keyword === 'FROM') {
      const [base = '', as, name] = instruction.args.split(/\s+/);
      const resolved = base.replace(/\$\{(\w+)\}/g, (_, arg: string) => globalArgs[arg] ?? '');
      stages.push({ base: resolved, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else if (stages.length === 0) {
      const arg = /^([A-Za-z_]\w*)=(.*)$/.exec(instruction.args);
      if (instruction.keyword === 'ARG' && arg) globalArgs[arg[1]!] = arg[2]!;
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

/** The stages a target is built from: its base stages first, then the target itself. */
export function stageChain(file: Dockerfile, target: string): Stage[] {
  const stage = file.stages.find((s) => s.name === target);
  if (!stage) throw new Error(`no stage named ${target}`);
  const parent = file.stages.find((s) => s.name === stage.base);
  return parent ? [...stageChain(file, parent.name!), stage] : [stage];
}

/** The ENV pairs of the given stages, later ones winning (`ENV A=1 B=2` form). */
export function stageEnv(stages: readonly Stage[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { instructions } of stages) {
    for (const { keyword, args } of instructions) {
      if (keyword !== 'ENV') continue;
      for (const pair of args.match(/[A-Za-z_]\w*=("[^"]*"|\S*)/g) ?? []) {
        const at = pair.indexOf('=');
        env[pair.slice(0, at)] = pair.slice(at + 1).replace(/^"(.*)"$/, '$1');
      }
    }
  }
  return env;
}

/** The last instruction of a keyword along the stages (CMD, HEALTHCHECK, WORKDIR, USER). */
export function lastInstruction(stages: readonly Stage[], keyword: string): Instruction | undefined {
  return stages.flatMap((s) => s.instructions).filter((i) => i.keyword === keyword).at(-1);
}

/** COPY sources and destination (`COPY [--from=stage] src... dest`). */
export function copyPaths(instruction: Instruction): { from?: string; sources: string[]; dest: string } {
  const parts = instruction.args.split(/\s+/);
  const from = instruction.flags.find(([name]) => name === 'from')?.[1];
  return { from, sources: parts.slice(0, -1), dest: parts.at(-1)! };
}

/** The options of each `--mount=type=bind,...` flag of an instruction. */
export function bindMounts(instruction: Instruction): Record<string, string>[] {
  return instruction.flags
    .filter(([name]) => name === 'mount')
    .map(([, value]) => Object.fromEntries(value.split(',').map((kv) => kv.split('=') as [string, string])))
    .filter((mount) => mount.type === 'bind');
}

function globToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (pattern.startsWith('**/', i)) {
      out += '(?:.*/)?';
      i += 2;
    } else if (pattern.startsWith('**', i)) {
      out += '.*';
      i += 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/**
 * Whether a context path is left out by .dockerignore lines: the last pattern that matches the
 * path or one of its folders decides, `!` patterns putting it back.
 */
export function dockerIgnored(ignoreFile: string, path: string): boolean {
  const rules = ignoreFile
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negated = l.startsWith('!');
      const pattern = (negated ? l.slice(1) : l).replace(/^\/+/, '').replace(/\/+$/, '');
      return { negated, matcher: globToRegExp(pattern) };
    });
  const parts = path.replace(/^\.\//, '').split('/');
  const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const { negated, matcher } of rules) {
    if (candidates.some((c) => matcher.test(c))) ignored = !negated;
  }
  return ignored;
}
