/**
 * `exchange-replica rest <operation>`: any REST operation, its parameters as flags named
 * exactly as documented (`--market_id 0`), JSON out. Flags and help come from the operations
 * table. Against a real exchange (`--rest-url`) or an embedded simulator (`--simulator`). @internal
 */
import { Command, Option } from 'commander';
import { describeAccepted, OPERATION_NAMES, OPERATIONS, type OperationName, type ParamSpec, type ParamSpecs } from '../protocol';
import { RestClient } from '../rest';
import { Simulator } from '../simulator/Simulator';
import { CliUsageError } from './CliUsageError';
import { reportCliError } from './reportCliError';
import { integerFlag, positiveMsFlag, urlFlag } from './flagParsers';
import { safeJson } from './term/safeText';

const INTEGER_TEXT = /^-?[0-9]+$/;

/** The flags of a `rest` subcommand: its own ones (parsed or defaulted) and the operation's parameters (text). */
type RestFlags = { readonly restUrl?: string; readonly simulator?: boolean; readonly seed: number; readonly timeoutMs: number } & Readonly<Record<string, unknown>>;

/** The parameter specs of an operation. */
function paramSpecs(name: OperationName): ParamSpecs {
  return OPERATIONS[name].params;
}

/** Converts flag text to the typed value the client checks (integers become numbers when exact). */
function flagValue(type: string, text: string): unknown {
  if ((type === 'int32' || type === 'int64') && INTEGER_TEXT.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  return text;
}

/** A plausible value of a parameter, for the generated example line. */
function exampleValue(name: string, spec: ParamSpec): string {
  if (spec.type === 'enum') return spec.values!.includes('perp') ? 'perp' : spec.values![0]!;
  if (spec.type === 'address') return '<address>';
  if (name.endsWith('timestamp')) return name.startsWith('end') ? String(Date.UTC(2030, 0, 1)) : '0';
  if (spec.type === 'int32' || spec.type === 'int64') return String(name === 'limit' || name === 'count_back' || name === 'depth' ? 10 : spec.min ?? 0);
  if (name === 'hash') return '<hash>';
  return `<${name}>`;
}

function exampleFor(name: OperationName): string {
  // `/v1/orders` needs `limit` unless `client_order_id` is given: show the common form.
  const required = Object.entries(paramSpecs(name)).filter(([p, s]) => s.required || (name === 'orders' && p === 'limit'));
  const flags = required.map(([p, s]) => `--${p} ${exampleValue(p, s)}`).join(' ');
  return `\nExamples:\n  exchange-replica rest ${name} --rest-url http://127.0.0.1:8080${flags ? ` ${flags}` : ''}\n  exchange-replica rest ${name} --simulator${flags ? ` ${flags}` : ''}\n`;
}

async function runRest(name: OperationName, flags: RestFlags): Promise<void> {
  const params: Record<string, unknown> = {};
  for (const [param, spec] of Object.entries(paramSpecs(name))) {
    const v = flags[param];
    if (typeof v === 'string') params[param] = flagValue(spec.type, v);
  }
  const restUrl = flags.restUrl ?? (flags.simulator ? undefined : process.env.EXCHANGE_REST_URL);
  if (flags.simulator && flags.restUrl !== undefined) throw new CliUsageError('--simulator and --rest-url exclude each other');
  if (!flags.simulator && restUrl === undefined) throw new CliUsageError('give --rest-url <url> (or EXCHANGE_REST_URL) for a real exchange, or --simulator for an embedded one');
  const sim = flags.simulator ? await Simulator.start({ seed: flags.seed, paused: true }) : undefined;
  try {
    const rest = new RestClient({ baseUrl: sim?.restUrl ?? restUrl!, timeoutMs: flags.timeoutMs });
    const out = await rest.call(name, params);
    // safeJson: C1 and bidi controls in the exchange's strings are escaped too (JSON.stringify leaves them raw).
    process.stdout.write(`${safeJson(out, 2)}\n`);
  } finally {
    await sim?.stop();
  }
}

/** The `rest` command and one subcommand per operation (mounted by the main program). */
export function restCommand(): Command {
  const cmd = new Command('rest')
    .description('Call one REST operation and print its JSON answer')
    .addHelpText(
      'after',
      `\nOperations: ${OPERATION_NAMES.join(', ')}\n\nExamples:\n  exchange-replica rest orderBook --rest-url http://127.0.0.1:8080 --market_type perp --market_id 0 --depth 5\n  exchange-replica rest markets --simulator --market_type all\n  exchange-replica rest orderBook --help\n\nParameters are flags named exactly as the API documents them. Errors print one line\n"error <code>: <message>" and exit with 2 (invalid parameter) or 1 (any other failure).`,
    );
  for (const name of OPERATION_NAMES) {
    const op = OPERATIONS[name];
    const sub = new Command(name).description(`${op.summary} (${op.path})`);
    sub.option('--rest-url <url>', 'base URL of the exchange REST API (or env EXCHANGE_REST_URL)', urlFlag(['http:', 'https:']));
    sub.option('--simulator', 'ask an embedded simulator (started paused for this one call)');
    sub.option('--seed <n>', 'seed of the embedded simulator', integerFlag(-(2 ** 31), 2 ** 32 - 1), 1);
    sub.option('--timeout-ms <ms>', 'per-request timeout in milliseconds', positiveMsFlag, 10000);
    for (const [param, spec] of Object.entries(paramSpecs(name))) {
      const o = new Option(`--${param} <value>`, `${describeAccepted(param, spec)}${spec.required ? ' (required)' : ''}${spec.default !== undefined ? ` (server default ${spec.default})` : ''}`);
      sub.addOption(o);
    }
    sub.addHelpText('after', exampleFor(name));
    sub.action(async (flags: RestFlags) => {
      try {
        await runRest(name, flags);
      } catch (e) {
        reportCliError(e);
      }
    });
    cmd.addCommand(sub);
  }
  return cmd;
}
