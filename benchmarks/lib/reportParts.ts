/** Markdown sections of the resync, fan-out and simulator-throughput parts of the report. */
import type { FanoutBenchResult } from '../fanout/fanoutBench';
import type { ResyncBenchResult } from '../resync/resyncBench';
import type { SimulatorThroughputResult } from '../simulatorThroughput';
import { fmt, fmtRatio, type Spread } from './stats';

type Table = (head: string[], rows: string[][]) => string;

const spreadCells = (s: Spread, digits = 3) => [fmt(s.p50, digits), fmt(s.p99, digits), fmt(s.max, digits)];

export function renderResync(r: ResyncBenchResult, table: Table): string[] {
  const c = r.config;
  const out: string[] = [];
  out.push(
    '',
    `## Resync: resync_required to live, ${r.levels.bids}/${r.levels.asks}-level book (${r.samples} resyncs after ${c.warmups} warm-ups; simulator at ${c.eventsPerSecond} events/s in another process; ms)`,
    '',
  );
  out.push(
    table(
      ['measure', 'p50', 'p99', 'max'],
      [
        ['total: resync_required arrives -> live emitted', ...spreadCells(r.totalMs)],
        ['REST round trip (inside fetch, whole body read)', ...spreadCells(r.restMs)],
        ['**client work** (total - REST)', ...spreadCells(r.clientMs)],
        ...r.phases.map((p) => [`↳ client: ${p.phase}`, ...spreadCells(p.ms)]),
      ],
    ),
  );
  out.push('', `Snapshot answer ${fmt(r.snapshotBytes / 1024, 1)} KiB; feed frames that arrived during a resync (buffered, then folded or dropped): median ${fmt(r.bufferedFrames.p50, 0)}, max ${fmt(r.bufferedFrames.max, 0)}.`);
  if (r.breakdown.length) {
    out.push('', `The library's post-fetch steps on a captured answer (median of ${c.breakdownReps} calls; back to back, and each after ${c.breakdownIdleMs} ms idle as in the run):`, '');
    out.push(table(['step', 'warm µs', 'after idle µs'], r.breakdown.map((b) => [b.step, fmt(b.warmUs), fmt(b.afterIdleUs)])));
  }
  return out;
}

export function renderFanout(f: FanoutBenchResult, table: Table): string[] {
  const s = f.subscriptions;
  const out: string[] = [];
  out.push(
    '',
    `## Fan-out: one connection, ${s.total} subscriptions (simulator at ${f.config.eventsPerSecond} events/s in another process; median of ${f.config.reps} windows of ${f.config.windowMs} ms)`,
    '',
  );
  out.push(
    `${s.replicas} replica subscriptions (${s.replicas === s.streamsServed ? 'every one' : s.replicas} of the ${s.streamsServed} streams the simulator serves: books, bbo, trades, stats, candles, mark candles, funding of every market; account, balances, positions, orders, fills of every subaccount), ${s.accountReplicas} combined account replica(s), ${s.rawTaps} raw update tap(s) (a second consumer of a stream); ${s.serverSubscriptions} server subscriptions. All live ${fmt(f.startupMs, 0)} ms after the first subscribe.`,
    '',
  );
  const single = f.singleSubscription;
  out.push(
    table(
      ['frames/s', 'CPU µs/frame', 'core share', 'simulator core share', 'emissions/frame', 'single-subscription client (same run)', 'fan-out vs single', 'correct'],
      [
        [
          fmt(f.framesPerSec, 0),
          fmt(f.cpuUsPerFrame, 2),
          `${fmt(f.coreShare * 100, 0)}%`,
          `${fmt(f.simulatorCoreShare * 100, 0)}%`,
          fmt(f.emissionsPerFrame, 2),
          single ? `${fmt(single.cpuUsPerFrame, 2)} µs/frame at ${single.rate}/s` : 'not measured',
          fmtRatio(single?.ratio),
          f.correct ? 'yes' : `NO: ${f.errors[0]}`,
        ],
      ],
    ),
  );
  const same = f.sameDelivery;
  if (same) {
    out.push(
      '',
      `Fed as the fan-out is (${same.rate} frames/s, everything due sent once every ${same.tickMs} ms, ~${fmt((same.rate * same.tickMs) / 1000, 0)} frames a burst, CPU pass of the socket part): the single-subscription client ${fmt(same.cpuUsPerFrame, 2)} µs/frame (median of ${same.samplesUs.length} windows, ${fmt(Math.min(...same.samplesUs), 2)}..${fmt(Math.max(...same.samplesUs), 2)}), the ws + JSON.parse floor ${fmt(same.floorCpuUsPerFrame, 2)} µs/frame; fan-out vs single ${fmtRatio(same.ratio)}, per emission ${fmtRatio(same.ratio / f.emissionsPerFrame)}.`,
    );
  }
  const mix = Object.entries(f.emissionsPerSecByChannel).map(([ch, n]) => `${ch} ${n}`);
  if (mix.length) out.push('', `Replica emissions per second by channel: ${mix.join(', ')}.`);
  return out;
}

export function renderSimulator(r: SimulatorThroughputResult, table: Table): string[] {
  return [
    '',
    `## Simulator throughput: book update frames/s its feed delivers to one client over loopback (${r.config.durationMs} ms per size)`,
    '',
    table(['levels a side', 'data bytes', 'frames/s'], r.rows.map((x) => [String(x.levelsPerSide), String(x.dataBytes), fmt(x.framesPerSec, 0)])),
  ];
}
