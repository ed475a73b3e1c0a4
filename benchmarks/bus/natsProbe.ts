/**
 * What nats-server alone adds, publish -> delivery, on this machine: the floor of the bus's
 * latency. `probeJetStream` publishes messages at a fixed rate (with a `Nats-Msg-Id` header
 * and an acknowledgement inbox, as the relay's publisher does) to a JetStream stream (memory
 * or file store) read by a push consumer (no acks, one filter subject, as a bus consumer's
 * PushConsumer), publisher and subscriber on two connections of one process, each message
 * stamped with its send time. The bus benchmark (busBench.ts) runs it in the same run, at the
 * message rate and size the relay published, as the floor of its latency targets.
 *
 * Alone (diagnosis): `npx tsx benchmarks/bus/natsProbe.ts [rate] [ms] [bytes]`: core NATS
 * pub/sub, JetStream on file and in memory, twice.
 */
import { AckPolicy, DeliverPolicy, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect, createInbox, headers, nanos } from '@nats-io/transport-node';
import { fileURLToPath } from 'node:url';
import { median } from '../lib/stats';
import { NatsServerProcess } from './NatsServerProcess';

export type ProbeMode = 'core' | 'file' | 'memory';

export interface ProbeOptions {
  /** Messages per second. */
  readonly rate: number;
  /** How long to publish, ms. */
  readonly ms: number;
  /** Payload bytes (at least 8: the send time). */
  readonly bytes: number;
  /** @default 'memory' */
  readonly mode?: ProbeMode;
}

/** Latencies publish -> delivery of one probe, µs, in arrival order. */
export async function probeJetStream(url: string, o: ProbeOptions): Promise<number[]> {
  const mode = o.mode ?? 'memory';
  const pub = await connect({ servers: url });
  const sub = await connect({ servers: url });
  const id = `${mode}_${Math.floor(Math.random() * 1e9).toString(36)}`;
  const subject = `probe.${id}`;
  const lat: number[] = [];
  const onMsg = (data: Uint8Array): void => {
    const t = Number(new DataView(data.buffer, data.byteOffset, 8).getBigUint64(0));
    lat.push((Number(process.hrtime.bigint()) - t) / 1000);
  };
  let cleanup = async (): Promise<void> => undefined;
  try {
    if (mode === 'core') {
      sub.subscribe(subject, { callback: (_e, m) => onMsg(m.data) });
      await sub.flush();
    } else {
      const jsm = await jetstreamManager(pub);
      const name = `PROBE_${id.toUpperCase()}`;
      await jsm.streams.add({ name, subjects: [subject], storage: mode === 'file' ? StorageType.File : StorageType.Memory, duplicate_window: nanos(120_000) });
      cleanup = async () => void (await jsm.streams.delete(name).catch(() => undefined));
      const inbox = createInbox();
      sub.subscribe(inbox, {
        callback: (_e, m) => {
          if (m.data.length >= 8) onMsg(m.data);
        },
      });
      await sub.flush();
      await (await jetstreamManager(sub)).consumers.add(name, { deliver_subject: inbox, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.New, filter_subject: subject, idle_heartbeat: nanos(1000), flow_control: false, mem_storage: true });
    }
    const acks = createInbox();
    pub.subscribe(`${acks}.*`, { callback: () => undefined });
    const h = headers();
    h.set('Er-Relay', 'probe');
    const payload = new Uint8Array(Math.max(8, Math.round(o.bytes)));
    payload.fill(0x61, 8);
    const view = new DataView(payload.buffer);
    const start = Date.now();
    let sent = 0;
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const due = Math.floor(((Date.now() - start) * o.rate) / 1000);
        while (sent < due) {
          view.setBigUint64(0, process.hrtime.bigint());
          h.set('Nats-Msg-Id', `m${sent}`);
          pub.publish(subject, payload, mode === 'core' ? {} : { reply: `${acks}.${sent}`, headers: h });
          sent++;
        }
        if (Date.now() - start > o.ms) {
          clearInterval(tick);
          resolve();
        }
      }, 1);
    });
    // What is on its way arrives (bounded: a lost one is not waited for).
    const deadline = Date.now() + 2000;
    while (lat.length < sent && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return lat;
  } finally {
    await cleanup();
    await pub.close();
    await sub.close();
  }
}

/** The p-th percentile (0..1) of `sorted`. */
export function percentileOf(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function main(): Promise<void> {
  const [rate = 2000, ms = 3000, bytes = 1100] = process.argv.slice(2).map(Number);
  const server = await NatsServerProcess.start();
  try {
    for (let rep = 0; rep < 2; rep++) {
      for (const mode of ['core', 'file', 'memory'] as const) {
        const lat = (await probeJetStream(server.url, { rate, ms, bytes, mode })).sort((a, b) => a - b);
        const p = (q: number) => percentileOf(lat, q).toFixed(0);
        console.log(`${mode.padEnd(6)} n=${lat.length} p50 ${p(0.5)} µs p90 ${p(0.9)} p99 ${p(0.99)} max ${p(0.99999)}  (median ${median(lat).toFixed(0)})`);
      }
    }
  } finally {
    await server.stop();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) void main();
