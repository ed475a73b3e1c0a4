/**
 * The NATS credential and TLS flags of `relay` and `view --nats`, each with its environment
 * variable (a flag wins over its variable). Secrets are never printed: no flag shows a default
 * (the variables are read when the command runs, not when the help is drawn), and the errors
 * name the flag, never its value. A password or token on the command line is visible to other
 * users of the machine (`ps`): prefer the variables or a file (`--nats-creds`, `--nats-nkey`).
 * @internal
 */
import type { Command } from 'commander';
import type { NatsAuth } from '../nats/natsAuth';
import { CliUsageError } from './CliUsageError';

/** Each flag (commander's camel-case key) and its environment variable. */
const FLAGS = [
  { flag: '--nats-creds <file>', key: 'natsCreds', env: 'NATS_CREDS', help: 'NATS .creds file (user JWT and NKey seed)' },
  { flag: '--nats-nkey <file>', key: 'natsNkey', env: 'NATS_NKEY', help: 'file holding an NKey seed (SU...)' },
  { flag: '--nats-user <user>', key: 'natsUser', env: 'NATS_USER', help: 'NATS user (with --nats-password)' },
  { flag: '--nats-password <password>', key: 'natsPassword', env: 'NATS_PASSWORD', help: 'password of --nats-user (prefer the variable: a flag shows in ps)' },
  { flag: '--nats-token <token>', key: 'natsToken', env: 'NATS_TOKEN', help: 'NATS token (prefer the variable: a flag shows in ps)' },
  { flag: '--nats-ca <file>', key: 'natsCa', env: 'NATS_CA', help: 'PEM file of the CA of the NATS server certificate (implies TLS; tls:// URLs imply it too)' },
  { flag: '--nats-cert <file>', key: 'natsCert', env: 'NATS_CERT', help: 'client certificate (PEM, with --nats-key) for a server that verifies clients' },
  { flag: '--nats-key <file>', key: 'natsKey', env: 'NATS_KEY', help: 'key of --nats-cert (PEM file)' },
] as const;

type FlagKey = (typeof FLAGS)[number]['key'];

/** Adds the flags to `command` (their help names the variable, never a value). */
export function addNatsAuthFlags(command: Command): Command {
  for (const f of FLAGS) command.option(f.flag, `${f.help} (or env ${f.env})`);
  return command;
}

/**
 * The `NatsAuth` of the flags and the environment (a flag wins over its variable), undefined
 * when none is given.
 * @throws CliUsageError naming the flags (never their values) when they conflict
 */
export function natsAuthFromFlags(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): NatsAuth | undefined {
  const value = (key: FlagKey): string | undefined => {
    const f = FLAGS.find((x) => x.key === key)!;
    const v = flags[key];
    if (typeof v === 'string') return v;
    const e = env[f.env];
    return e === undefined || e === '' ? undefined : e;
  };
  const name = (key: FlagKey): string => {
    const f = FLAGS.find((x) => x.key === key)!;
    return `${f.flag.split(' ')[0]} (${f.env})`;
  };
  const creds = value('natsCreds');
  const nkey = value('natsNkey');
  const user = value('natsUser');
  const password = value('natsPassword');
  const token = value('natsToken');
  const kinds = ([['natsCreds', creds], ['natsNkey', nkey], ['natsUser', user], ['natsToken', token]] as const).filter(([, v]) => v !== undefined).map(([k]) => name(k));
  if (kinds.length > 1) throw new CliUsageError(`give one kind of NATS credentials, not ${kinds.join(' and ')}`);
  if (password !== undefined && user === undefined) throw new CliUsageError(`${name('natsPassword')} needs ${name('natsUser')}`);
  if (user !== undefined && password === undefined) throw new CliUsageError(`${name('natsUser')} needs ${name('natsPassword')}`);
  const ca = value('natsCa');
  const cert = value('natsCert');
  const key = value('natsKey');
  if ((cert === undefined) !== (key === undefined)) throw new CliUsageError(`${name('natsCert')} and ${name('natsKey')} go together`);
  const auth: NatsAuth = {
    ...(creds !== undefined ? { credsFile: creds } : {}),
    ...(nkey !== undefined ? { nkeySeedFile: nkey } : {}),
    ...(user !== undefined ? { user, password } : {}),
    ...(token !== undefined ? { token } : {}),
    ...(ca !== undefined ? { caFile: ca } : {}),
    ...(cert !== undefined ? { certFile: cert, keyFile: key } : {}),
  };
  return Object.keys(auth).length === 0 ? undefined : auth;
}
