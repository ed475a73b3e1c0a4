/**
 * `exchange-replica rest <operation>`: any REST operation, its parameters as flags named
 * exactly as documented (`--market_id 0`), JSON out. Flags and help come from the operations
 * table. @internal
 */
import { Command, Option } from 'commander';
import { describeAccepted, OPERATION_NAMES, OPERATIONS, type OperationName } from '../protocol';
import { RestClient } from '../rest';
import { ExchangeReplicaError } from '../errors';

const INTEGER_TEXT = /^-?[0-9]+$/;

/** Converts flag text to the typed value the client checks (integers become numbers when exact). */
function flagValue(type: string, text: string): unknown {
  if ((type === 'int32' || type === 'int64') && INTEGER_TEXT.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  return text;
}

export function restCommand(): Command {
  const cmd = new Command('rest')
    .description('Call one REST operation and print its JSON answer')
    .addHelpText('after', `\nOperations: ${OPERATION_NAMES.join(', ')}\n\nExamples:\n  exchange-replica rest orderBook --rest-url http://127.0.0.1:8080 --market_type perp --market_id 0 --depth 5\n  exchange-replica rest orderBook --help`);
  for (const name of OPERATION_NAMES) {
    const op = OPERATIONS[name];
    const sub = new Command(name).description(`${op.summary} (${op.path})`);
    sub.requiredOption('--rest-url <url>', 'base URL of the exchange REST API', process.env.EXCHANGE_REST_URL);
    sub.option('--timeout-ms <ms>', 'per-request timeout in milliseconds', '10000');
    for (const [param, spec] of Object.entries(op.params)) {
      const o = new Option(`--${param} <value>`, `${describeAccepted(param, spec)}${spec.required ? ' (required)' : ''}${spec.default !== undefined ? ` (server default ${spec.default})` : ''}`);
      sub.addOption(o);
    }
    sub.action(async (flags: Record<string, string>) => {
      const params: Record<string, unknown> = {};
      for (const [param, spec] of Object.entries(op.params)) {
        if (flags[param] !== undefined) params[param] = flagValue(spec.type, flags[param]);
      }
      const rest = new RestClient({ baseUrl: flags.restUrl!, timeoutMs: Number(flags.timeoutMs) });
      try {
        const out = await rest.request(name as OperationName, params as never);
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      } catch (e) {
        const err = e as ExchangeReplicaError;
        process.stderr.write(`error ${err.code ?? 'ERR_UNKNOWN'}: ${err.message}\n`);
        process.exitCode = err.code === 'ERR_INVALID_PARAMETER' ? 2 : 1;
      }
    });
    cmd.addCommand(sub);
  }
  return cmd;
}
