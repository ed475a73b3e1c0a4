/**
 * Diagnosis probe (not part of `npm run bench`): what nats-server alone adds, publish ->
 * delivery, on this machine: core NATS pub/sub vs a JetStream stream (file or memory store)
 * read by a push consumer, at a fixed message rate, publisher and subscriber on two
 * connections of one process. `npx tsx benchmarks/bus/natsProbe.ts [rate] [ms] [bytes]`
 */
import { AckPolicy, DeliverPolicy, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { connect, createInbox, headers } from '@nats-io/transport-node';
import { median } from '../lib/stats';
import { NatsServerProcess } from './NatsServerProcess';

const [rate = 2000, ms = 3000, bytes = 1100] = process.argv.slice(2).map(Number);

async function run(mode: 'core' | 'file' | 'memory', url: string): Promise<number[]> {
  const pub = await connect({ servers: url });
  const sub = await connect({ servers: url });
  const subject = `probe.${mode}`;
  const lat: number[] = [];
  const onMsg = (data: Uint8Array): void => {
    const t = Number(new DataView(data.buffer, data.byteOffset, 8).getBigUint64(0));
    lat.push((Number(process.hrtime.bigint()) - t) / 1000);
  };
  let cleanup = async (): Promise<void> => undefined;
  if (mode === 'core') {
    sub.subscribe(subject, { callback: (_e, m) => onMsg(m.data) });
    await sub.flush();
  } else {
    const jsm = await jetstreamManager(pub);
    const name = `PROBE_${mode.toUpperCase()}`;
    await jsm.streams.add({ name, subjects: [subject], storage: mode === 'file' ? StorageType.File : StorageType.Memory });
    const inbox = createInbox();
    sub.subscribe(inbox, { callback: (_e, m) => { if (m.data.length >= 8) onMsg(m.data); } });
    await sub.flush();
    await (await jetstreamManager(sub)).consumers.add(name, { deliver_subject: inbox, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.New, filter_subject: subject, idle_heartbeat: 1_000_000_000, flow_control: false });
    cleanup = async () => void (await jsm.streams.delete(name));
  }
  const acks = createInbox();
  pub.subscribe(`${acks}.*`, { callback: () => undefined });
  const h = headers();
  const payload = new Uint8Array(bytes);
  const view = new DataView(payload.buffer);
  const start = Date.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.floor(((Date.now() - start) * rate) / 1000);
      while (sent < due) {
        view.setBigUint64(0, process.hrtime.bigint());
        h.set('Nats-Msg-Id', `m${sent}`);
        pub.publish(subject, payload, mode === 'core' ? {} : { reply: `${acks}.${sent}`, headers: h });
        sent++;
      }
      if (Date.now() - start > ms) {
        clearInterval(tick);
        resolve();
      }
    }, 1);
  });
  await new Promise((r) => setTimeout(r, 300));
  await cleanup();
  await pub.close();
  await sub.close();
  return lat;
}

async function main(): Promise<void> {
  const server = await NatsServerProcess.start();
  try {
    for (let rep = 0; rep < 2; rep++) {
      for (const mode of ['core', 'file', 'memory'] as const) {
        const lat = (await run(mode, server.url)).sort((a, b) => a - b);
        const p = (q: number) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))]!.toFixed(0);
        console.log(`${mode.padEnd(6)} n=${lat.length} p50 ${p(0.5)} µs p90 ${p(0.9)} p99 ${p(0.99)} max ${p(0.99999)}  (median ${median(lat).toFixed(0)})`);
      }
    }
  } finally {
    await server.stop();
  }
}

void main();
