/**
 * A real `Simulator` in its OWN process (forked by `SimulatorProcess`), so that the client
 * benchmarks measure the client's CPU and time alone: the matching engine, the order flow
 * and the feed's fan-out run here, on the other core.
 *
 * IPC protocol: see `SimCommand` and `SimReply` (one reply per command, in order).
 */
import { Simulator } from '../../src/simulator';
import type { SimCommand, SimReply, SimStats } from './simProtocol';

let sim: Simulator | undefined;

const reply = (r: SimReply) => process.send!(r);

function stats(s: Simulator): SimStats {
  const conns = s.faults.connections();
  const cpu = process.cpuUsage();
  return {
    subaccounts: s.engine.accounts.flatMap((a) => a.subaccount_ids.map((subaccount_id) => ({ address: a.address, subaccount_id }))),
    markets: s.engine.markets.map((m) => ({ market_type: m.market_type, market_id: m.market_id })),
    overflowDrops: s.faults.overflowDrops(),
    subscriptions: conns.reduce((n, c) => n + c.subscriptions.length, 0),
    connections: conns.length,
    cpuUs: cpu.user + cpu.system,
  };
}

async function handle(cmd: SimCommand): Promise<SimReply | undefined> {
  if (cmd.cmd === 'init') {
    sim = await Simulator.start({ ...cmd.options, host: '127.0.0.1', port: 0 });
    return { type: 'ready', restUrl: sim.restUrl, wsUrl: sim.wsUrl };
  }
  if (cmd.cmd === 'exit') {
    await sim?.stop();
    process.exit(0);
  }
  if (!sim) return { type: 'error', message: `${cmd.cmd}: the simulator is not started` };
  switch (cmd.cmd) {
    case 'resync':
      sim.faults.resyncStream(cmd.key);
      return { type: 'ok' };
    case 'pause':
      sim.pause();
      return { type: 'ok' };
    case 'resume':
      sim.resume();
      return { type: 'ok' };
    case 'truth': {
      const t = sim.truth(cmd.name, cmd.params);
      return { type: 'truth', status: t.status, body: t.body };
    }
    case 'stats':
      return { type: 'stats', stats: stats(sim) };
  }
}

// Commands are handled one after the other, so replies keep the commands' order.
let chain = Promise.resolve();
process.on('message', (cmd: SimCommand) => {
  chain = chain.then(async () => {
    try {
      const r = await handle(cmd);
      if (r) reply(r);
    } catch (e) {
      reply({ type: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  });
});
// The parent owns this process: when it goes, so does the simulator.
process.on('disconnect', () => process.exit(0));
