export declare const IMAGE_FILE: string;
export declare const FIRST_PORT_SLOT: number;
export declare function firmwareFile(): string;
export declare function accelerator(moduleDir?: string): 'kvm' | 'tcg';
export declare function guestPortName(index: number): string;
export declare function qemuArgs(options: {
  image?: string;
  ports: readonly string[];
  memoryMiB?: number;
  cpus?: number;
  accel?: 'kvm' | 'tcg';
  agentSocket: string;
  monitorSocket: string;
  serialLog: string;
  macPrefix?: string;
  firmware?: string;
  /** Let a guest reboot restart within the QEMU process (default: a reboot ends QEMU). */
  reboot?: boolean;
}): string[];

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

export declare class GuestAgent {
  readonly path: string;
  constructor(path: string);
  ready(timeoutMs: number): Promise<void>;
  sync(timeoutMs: number): Promise<void>;
  exec(argv: readonly string[], options?: { input?: string | Uint8Array; timeoutMs?: number }): Promise<ExecResult>;
  run(argv: readonly string[], options?: { input?: string | Uint8Array; timeoutMs?: number }): Promise<string>;
  readFile(path: string): Promise<string>;
  close(): void;
}

export declare class GatewayVm {
  readonly agent: GuestAgent;
  readonly accel: 'kvm' | 'tcg';
  readonly serialLog: string;
  constructor(options: { ports: readonly string[]; memoryMiB?: number; cpus?: number; accel?: 'kvm' | 'tcg'; image?: string; reboot?: boolean });
  start(): Promise<void>;
  reset(): Promise<void>;
  elapsed(): number;
  booted(timeoutMs: number): Promise<void>;
  serial(): string;
  stop(): Promise<void>;
}
