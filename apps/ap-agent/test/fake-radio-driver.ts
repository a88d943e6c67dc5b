import type { ScanEntry } from '@portico/schema';
import type { ConfigPlan } from '../src/ap-agent-config-plan.js';
import type { DriverSnapshot, HealthCheck, RadioDriver, ScanRequest, SteeringRequest } from '../src/ap-agent-radio-driver.js';

/** Radios in memory: records what the session asked and answers with what the test set. */
export class FakeRadioDriver implements RadioDriver {
  readonly applied: ConfigPlan[] = [];
  readonly steered: Array<SteeringRequest & { at: number }> = [];
  readonly txPower: Array<[number, number]> = [];
  readonly channelSwitches: Array<[number, number]> = [];
  readonly scans: ScanRequest[] = [];
  snapshotValue: DriverSnapshot = { radios: [], bsses: [] };
  checks: HealthCheck[] = [];
  scanResult: ScanEntry[] = [];
  failApply = false;

  constructor(private readonly now: () => number = () => 0) {}

  async apply(plan: ConfigPlan): Promise<void> {
    if (this.failApply) throw new Error('hostapd refused to start');
    this.applied.push(plan);
  }

  async snapshot(): Promise<DriverSnapshot> {
    return structuredClone(this.snapshotValue);
  }

  async health(): Promise<HealthCheck[]> {
    return this.checks;
  }

  async scan(request: ScanRequest): Promise<ScanEntry[]> {
    this.scans.push(request);
    return this.scanResult;
  }

  async steer(request: SteeringRequest): Promise<void> {
    this.steered.push({ ...request, at: this.now() });
  }

  async setTxPower(radioIndex: number, dBm: number): Promise<void> {
    this.txPower.push([radioIndex, dBm]);
  }

  async switchChannel(radioIndex: number, channel: number): Promise<void> {
    this.channelSwitches.push([radioIndex, channel]);
  }
}
