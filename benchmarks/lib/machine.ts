/** The header of every result: the machine, the runtime and the versions measured. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';

export interface MachineHeader {
  readonly date: string;
  readonly cpuModel: string;
  readonly cores: number;
  readonly totalMemoryMiB: number;
  readonly loadAverage: readonly number[];
  readonly platform: string;
  readonly node: string;
  readonly v8: string;
  readonly packages: Readonly<Record<string, string>>;
}

const MEASURED_PACKAGES = ['ws', 'zod', 'ccxt', 'orderbooks', 'hdr-histogram-js', 'tsx'];

/** The installed version of a package, read from its package.json (exports maps may hide it). */
export function packageVersion(name: string): string {
  const require = createRequire(import.meta.url);
  try {
    let dir = dirname(require.resolve(name));
    for (let i = 0; i < 6; i++) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === name && pkg.version) return pkg.version;
      } catch {
        // not at this level: go up
      }
      dir = dirname(dir);
    }
  } catch {
    // not installed
  }
  return 'unknown';
}

export function machineHeader(): MachineHeader {
  const cpus = os.cpus();
  const own = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  const packages: Record<string, string> = { [own.name]: own.version };
  for (const p of MEASURED_PACKAGES) packages[p] = packageVersion(p);
  return {
    date: new Date().toISOString(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    totalMemoryMiB: Math.round(os.totalmem() / 2 ** 20),
    loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    v8: process.versions.v8,
    packages,
  };
}
