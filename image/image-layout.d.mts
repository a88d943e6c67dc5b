export declare const IMAGE_LAYOUT: Readonly<{
  appDir: string;
  node: string;
  rootLabel: string;
  slots: Readonly<{ a: string; b: string }>;
  statePartLabel: string;
  stateMiB: number;
  firmwareKey: string;
  espMiB: number;
  rootSpareMiB: number;
  kernelOptions: readonly string[];
  enabledUnits: readonly string[];
  maskedUnits: readonly string[];
  stateDir: string;
  portsEnv: string;
  consolePort: number;
}>;
export declare function imagePackages(): { suite: string; mirror: string; packages: string[] };
