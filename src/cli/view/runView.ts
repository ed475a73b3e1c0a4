/**
 * The live view: starts the embedded simulator (or connects to a real exchange), a client,
 * and draws several times a second in place (terminal), prints one line a second (pipe) or
 * serves a web page pushed ten snapshots a second (`webPort`), until `q`, Ctrl-C, a signal
 * or `durationMs`. Always restores the terminal and closes the web server, the client and
 * the simulator. @internal
 */
import { systemClock } from '../../clock';
import { RunControl, type StopReason } from '../RunControl';
import { openTarget, type Target } from '../target';
import { safeText } from '../term/safeText';
import { Terminal } from '../term/Terminal';
import { drawScreen } from './drawScreen';
import { FaultPicker, type InjectedFault } from './FaultPicker';
import { openBusView } from './busView';
import { pickTargets, type PickOptions, type ViewTargets } from './pickTargets';
import { statusLine } from './statusLine';
import { shortAddress } from './accountPanel';
import { gatherFrame, ms } from './ViewFrame';
import { ViewModel } from './ViewModel';
import { WebViewServer } from '../web/WebViewServer';
import { webSnapshot } from '../web/WebSnapshot';
import type { NatsAuth } from '../../nats/natsAuth';

/** Snapshots pushed to the web page per second (each a whole view: the page keeps the newest). */
export const WEB_SNAPSHOTS_PER_SECOND = 10;

/** Options of {@link runView}. */
export interface ViewOptions extends PickOptions {
  /** A real exchange's REST URL (then `f` is disabled). @default undefined: the embedded simulator */
  readonly restUrl?: string;
  /** A real exchange's feed URL. @default derived from `restUrl` */
  readonly wsUrl?: string;
  /** Seed of the embedded simulator and of the faults `f` draws. @default 1 */
  readonly seed?: number;
  /** Stop by itself after this long. @default undefined (until `q` or Ctrl-C) */
  readonly durationMs?: number;
  /** Order-flow events per second of the embedded simulator. @default the simulator's (200) */
  readonly eventsPerSecond?: number;
  /** Draws per second on a terminal (a pipe gets one line a second). @default 5 */
  readonly drawsPerSecond?: number;
  /** Draw from the bus (NATS JetStream, fed by `relay`s) at this URL instead of the exchange. @default undefined */
  readonly natsUrl?: string;
  /** Credentials and TLS of the bus connection (`natsUrl`). Never printed. @default none */
  readonly natsAuth?: NatsAuth;
  /** Serve the view as a web page on 127.0.0.1 at this port (0: any free one) instead of drawing it on the terminal. @default undefined */
  readonly webPort?: number;
}

/** Where the view draws (tests may pass their own). */
export interface ViewIo {
  readonly terminal?: Terminal;
  /**
   * Another source than `openTarget` (e.g. a replayed recording): the client, the targets to
   * show (else picked as usual), and a promise whose settling ends the view.
   */
  readonly open?: () => Promise<{ readonly target: Target; readonly targets?: ViewTargets; readonly ended?: Promise<unknown> }>;
}

/**
 * Runs the view to its end.
 * @returns why it stopped
 * @throws ExchangeReplicaError when the simulator or the exchange cannot be reached at start
 */
export async function runView(options: ViewOptions, io: ViewIo = {}): Promise<StopReason> {
  const terminal = io.terminal ?? new Terminal();
  const web = options.webPort;
  // The web view draws nothing on the terminal (it still reads keys there).
  const interactive = web === undefined && terminal.interactive;
  const seed = options.seed ?? 1;
  // Listen first: a port in use fails before any simulator or connection is started.
  const server = web === undefined ? undefined : await WebViewServer.start(web).catch((e: unknown) => {
    terminal.close();
    throw e;
  });
  const control = new RunControl(options.durationMs);
  terminal.onOutputClosed(() => control.stop('quit'));
  const startedMs = Date.now();
  const natsUrl = options.natsUrl;
  const open: ViewIo['open'] = io.open ?? (natsUrl !== undefined ? () => openBusView({ ...options, natsUrl }) : undefined);
  const opened = await (open ? open() : openTarget({ restUrl: options.restUrl, wsUrl: options.wsUrl, simulator: options.restUrl === undefined, seed, eventsPerSecond: options.eventsPerSecond }).then((t) => ({ target: t, targets: undefined, ended: undefined }))).catch(async (e: unknown) => {
    control.dispose();
    await server?.close();
    terminal.close();
    throw e;
  });
  const target = opened.target;
  const { client, sim } = target;
  const restoreOnExit = (): void => terminal.restore();
  let vm: ViewModel | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failure: unknown;
  let lastFault: InjectedFault | undefined;
  try {
    const targets = opened.targets ?? (await pickTargets(client, sim, options));
    vm = new ViewModel(client, targets).start();
    const model = vm;
    const picker = sim ? new FaultPicker(sim.faults, targets.markets, seed) : undefined;
    const draw = (): void => {
      if (control.isStopped) return;
      try {
        const frame = gatherFrame(model, client, target.label, startedMs, picker !== undefined, lastFault);
        if (server) server.publish(webSnapshot(frame));
        else if (interactive) terminal.draw(drawScreen(frame, terminal.columns, terminal.rows));
        else terminal.println(statusLine(frame));
        model.metrics.drawn(systemClock.nowNs());
      } catch (e) {
        failure = e;
        control.stop('error');
      }
    };
    if (interactive) {
      process.once('exit', restoreOnExit);
      terminal.enter();
      terminal.onResize(draw);
    } else {
      const account = targets.account ? `; account ${shortAddress(targets.account.address)}/${targets.account.subaccount_id}` : '';
      // The symbols are the exchange's: shown, never obeyed by the terminal.
      const shown = `${safeText(target.label)}; markets ${targets.markets.map((m) => safeText(m.symbol)).join(', ')}${account}`;
      terminal.println(server ? `view: serving ${server.url} (${shown}); Ctrl-C stops` : `view: ${shown}; one line a second`);
    }
    if (terminal.readsKeys) {
      terminal.onKey((key) => {
        if (key === 'q' || key === 'Q') control.stop('quit');
        else if (key === 'ctrl-c') control.stop('signal');
        else if ((key === 'f' || key === 'F') && picker) {
          lastFault = picker.inject();
          if (interactive || server) draw();
        }
      });
    }
    timer = setInterval(draw, server ? 1000 / WEB_SNAPSHOTS_PER_SECOND : interactive ? Math.round(1000 / (options.drawsPerSecond ?? 5)) : 1000);
    draw();
    opened.ended?.then(
      () => {
        draw();
        control.stop('duration');
      },
      (e: unknown) => {
        failure = e;
        control.stop('error');
      },
    );
    const reason = await control.stopped;
    if (failure) throw failure;
    return reason;
  } catch (e) {
    failure ??= e;
    throw e;
  } finally {
    if (timer) clearInterval(timer);
    const summary = vm ? finalSummary(vm, client.resyncCounts(), startedMs, interactive) : '';
    vm?.stop();
    terminal.restore();
    process.off('exit', restoreOnExit);
    control.dispose();
    // The pages first: they show "view stopped" while the client closes.
    await server?.close();
    await target.close();
    if (summary && !failure) terminal.println(summary);
    terminal.close();
  }
}

/** The closing line: server->draw latency after drawing on a terminal, server->model after printing lines (a draw a second is no latency). */
function finalSummary(vm: ViewModel, resyncs: Record<string, number>, startedMs: number, interactive: boolean): string {
  const total = Object.values(resyncs).reduce((a, b) => a + b, 0);
  const l = (interactive ? vm.metrics.renderLatency : vm.metrics.modelLatency).percentiles();
  return `view stopped after ${((Date.now() - startedMs) / 1000).toFixed(1)}s: resyncs ${total}, errors ${vm.errorCount}, ${interactive ? 'server→draw' : 'server→model'} p50 ${ms(l.p50)} p99 ${ms(l.p99)}`;
}
