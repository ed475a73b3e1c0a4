/**
 * How a relay and a consumer sign in to NATS: one kind of credentials (user and password, a
 * token, an NKey seed, or a `.creds` file), handed to nats.js's own authenticators, and TLS
 * (a `tls://` URL, a CA file, a client certificate). On a bus whose nats-server gives the
 * relays and the consumers different permissions (README, "Trust"; examples/nats/roles.conf),
 * these decide who may publish what the consumers believe.
 *
 * Secrets never leave this module in text: no error message, context or log line holds a
 * password, token, seed or the content of a file, and a URL carrying credentials is refused
 * (nats.js would ignore them) without being repeated.
 *
 * The errors NATS gives for a refused sign-in or a refused operation are made coded errors
 * here: `ERR_BUS_AUTH` (the server refused the connection) and `ERR_BUS_PERMISSION` (the
 * server refused a publish, a subscription or a JetStream request to these credentials).
 */
import { readFileSync } from 'node:fs';
import type { Authenticator, NodeConnectionOptions } from '@nats-io/transport-node';
import { ExchangeReplicaError, InvalidParameterError } from '../errors';
import type { NatsModules } from './natsModules';

/** NATS credentials and TLS of a relay (`ReplicaRelayOptions.natsAuth`) or a consumer (`BusSourceOptions.natsAuth`). At most one kind of credentials. */
export interface NatsAuth {
  /** User name, with `password` (nats-server `users`). @default none */
  readonly user?: string;
  /** Password of `user`. @default none */
  readonly password?: string;
  /** Token (nats-server `authorization { token }`). @default none */
  readonly token?: string;
  /** NKey seed (`SU...`) of an NKey user, as text. @default none */
  readonly nkeySeed?: string;
  /** A file holding an NKey seed (`SU...`). @default none */
  readonly nkeySeedFile?: string;
  /** A `.creds` file: a user JWT and its NKey seed (nats-server in operator mode). @default none */
  readonly credsFile?: string;
  /** Require TLS (implied by a `tls://` URL and by any TLS file below). @default false */
  readonly tls?: boolean;
  /** PEM file of the certificate authorities that signed the server's certificate. @default the system's */
  readonly caFile?: string;
  /** Client certificate (PEM file), with `keyFile`, for a server that verifies its clients. @default none */
  readonly certFile?: string;
  /** Key of `certFile` (PEM file). @default none */
  readonly keyFile?: string;
}

const STRING_FIELDS = ['user', 'password', 'token', 'nkeySeed', 'nkeySeedFile', 'credsFile', 'caFile', 'certFile', 'keyFile'] as const;

/** The kinds of credentials, each from its fields. */
const KINDS: readonly (readonly [string, readonly (keyof NatsAuth)[]])[] = [
  ['user and password', ['user', 'password']],
  ['token', ['token']],
  ['NKey seed', ['nkeySeed', 'nkeySeedFile']],
  ['creds file', ['credsFile']],
];

/** A URL with `user:password@` or `token@` before its host. */
const URL_CREDENTIALS = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i;

function bad(param: string, message: string): never {
  throw new InvalidParameterError(`invalid option '${param}': ${message}`, { param });
}

/**
 * Checks the fields of a `NatsAuth` (types, one kind of credentials, a password only with a
 * user, a certificate with its key). Never repeats a value.
 * @throws InvalidParameterError naming the field.
 */
export function checkNatsAuth(auth: NatsAuth | undefined, param = 'natsAuth'): void {
  if (auth === undefined) return;
  if (auth === null || typeof auth !== 'object') bad(param, 'expected an object');
  for (const f of STRING_FIELDS) {
    const v = auth[f];
    if (v !== undefined && (typeof v !== 'string' || v === '')) bad(`${param}.${f}`, 'expected a non-empty string');
  }
  if (auth.tls !== undefined && typeof auth.tls !== 'boolean') bad(`${param}.tls`, 'expected true or false');
  const given = KINDS.filter(([, fields]) => fields.some((f) => auth[f] !== undefined)).map(([kind]) => kind);
  if (given.length > 1) bad(param, `give one kind of credentials, not ${given.join(' and ')}`);
  if (auth.password !== undefined && auth.user === undefined) bad(`${param}.user`, 'a password needs its user');
  if (auth.nkeySeed !== undefined && auth.nkeySeedFile !== undefined) bad(`${param}.nkeySeed`, 'give nkeySeed or nkeySeedFile, not both');
  if ((auth.certFile === undefined) !== (auth.keyFile === undefined)) bad(`${param}.certFile`, 'a client certificate needs its key (certFile and keyFile)');
}

/**
 * The NATS URLs as a list, checked: none empty, none carrying credentials (nats.js would not
 * use them; the message does not repeat the URL).
 * @throws InvalidParameterError
 */
export function checkNatsUrls(urls: string | readonly string[], param = 'natsUrl'): string[] {
  const list = typeof urls === 'string' ? [urls] : Array.isArray(urls) ? [...(urls as readonly unknown[])] : [];
  if (list.length === 0 || list.some((u) => typeof u !== 'string' || u.trim() === '')) bad(param, 'expected a NATS URL such as nats://127.0.0.1:4222');
  const strings = list as string[];
  if (strings.some((u) => URL_CREDENTIALS.test(u.trim()))) {
    bad(param, 'a NATS URL must not carry credentials (user:password@ or token@): give them as natsAuth (CLI: --nats-user and --nats-password, --nats-token, --nats-nkey or --nats-creds, or their environment variables)');
  }
  return strings.map((u) => u.trim());
}

/** A URL fit to print: anything between the scheme and an `@` is replaced by `***`. */
export function redactNatsUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1***@');
}

/** Whether credentials are given, in `natsAuth` or in the raw connection options. */
export function hasCredentials(auth: NatsAuth | undefined, options: { readonly user?: unknown; readonly token?: unknown; readonly authenticator?: unknown } | undefined): boolean {
  const fromAuth = auth !== undefined && KINDS.some(([, fields]) => fields.some((f) => auth[f] !== undefined));
  return fromAuth || options?.user !== undefined || options?.token !== undefined || options?.authenticator !== undefined;
}

function readSecretFile(path: string, param: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (e) {
    // The path is the user's own and not secret; the content never appears.
    bad(param, `cannot read ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

/**
 * The nats.js connection options of `auth` (an authenticator, TLS) for `urls`: checked and
 * read (files) now, so that a wrong seed or an unreadable file is an error naming the field
 * rather than a connection that never signs in.
 * @throws InvalidParameterError naming the field (never its value)
 */
export function natsAuthOptions(mods: NatsModules, auth: NatsAuth | undefined, urls: readonly string[], param = 'natsAuth'): Partial<NodeConnectionOptions> {
  checkNatsAuth(auth, param);
  const out: { authenticator?: Authenticator; tls?: NonNullable<NodeConnectionOptions['tls']> } = {};
  const t = mods.transport;
  if (auth?.user !== undefined) out.authenticator = t.usernamePasswordAuthenticator(auth.user, auth.password);
  else if (auth?.token !== undefined) out.authenticator = t.tokenAuthenticator(auth.token);
  else if (auth?.nkeySeed !== undefined || auth?.nkeySeedFile !== undefined) {
    const field = auth.nkeySeed !== undefined ? 'nkeySeed' : 'nkeySeedFile';
    const seed = auth.nkeySeed !== undefined ? new TextEncoder().encode(auth.nkeySeed.trim()) : trimBytes(readSecretFile(auth.nkeySeedFile!, `${param}.nkeySeedFile`));
    try {
      t.nkeys.fromSeed(seed).getPublicKey();
    } catch {
      bad(`${param}.${field}`, 'not an NKey seed (expected the text of a seed, SU...)');
    }
    out.authenticator = t.nkeyAuthenticator(seed);
  } else if (auth?.credsFile !== undefined) {
    const creds = readSecretFile(auth.credsFile, `${param}.credsFile`);
    const authenticator = t.credsAuthenticator(creds);
    try {
      // Parses the file and signs a test nonce: a malformed file fails here, not at each connect.
      authenticator('nonce');
    } catch {
      bad(`${param}.credsFile`, `${JSON.stringify(auth.credsFile)} is not a NATS .creds file (a user JWT and an NKey seed)`);
    }
    out.authenticator = authenticator;
  }
  const wantsTls = auth?.tls === true || auth?.caFile !== undefined || auth?.certFile !== undefined || urls.some((u) => /^tls:\/\//i.test(u));
  if (wantsTls) {
    // An object (even empty) makes nats.js require TLS; nats.js reads the files itself at each connect.
    for (const f of ['caFile', 'certFile', 'keyFile'] as const) if (auth?.[f] !== undefined) readSecretFile(auth[f], `${param}.${f}`);
    out.tls = { ...(auth?.caFile !== undefined ? { caFile: auth.caFile } : {}), ...(auth?.certFile !== undefined ? { certFile: auth.certFile, keyFile: auth.keyFile } : {}) };
  }
  return out;
}

function trimBytes(b: Uint8Array): Uint8Array {
  return new TextEncoder().encode(new TextDecoder().decode(b).trim());
}

// ---- NATS's refusals as coded errors -----------------------------------------

/** Error-like: an `Error` of any realm (Node's own errors are not `instanceof` a sandbox's `Error`). */
function isErrorLike(e: unknown): e is Error {
  return typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string';
}

/** The error, or one of its causes, that `test` accepts. */
function findCause(error: unknown, test: (e: Error) => boolean): Error | undefined {
  for (let e = error, depth = 0; isErrorLike(e) && depth < 8; e = e.cause, depth++) if (test(e)) return e;
  return undefined;
}

/** NATS refused to sign in: an authorization violation, or credentials that expired. */
export function isAuthRefusal(error: unknown): boolean {
  return findCause(error, (e) => e.name === 'AuthorizationError' || e.name === 'UserAuthenticationExpiredError' || /authorization violation|authentication expired/i.test(e.message)) !== undefined;
}

/** The TLS handshake failed: the server's certificate not trusted or not for this host, or TLS required by one side only. */
export function isTlsRefusal(error: unknown): boolean {
  return (
    findCause(error, (e) => {
      const code = (e as { code?: unknown }).code;
      return (typeof code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|ALTNAME/.test(code)) || /certificate|altnames|tls is not available|tls.*required/i.test(e.message);
    }) !== undefined
  );
}

/** The permission violation an error is or wraps (nats.js's `PermissionViolationError`, or a request failed by one). */
export function permissionRefusal(error: unknown): Error | undefined {
  return findCause(error, (e) => e.name === 'PermissionViolationError' || /permissions violation/i.test(e.message));
}

/**
 * A failure to connect to NATS as a coded error: `ERR_BUS_AUTH` when the server refused the
 * sign-in (the message says whether credentials were given), else `ERR_BUS`. `urls` are
 * printed without credentials.
 */
export function connectError(cause: unknown, urls: readonly string[], credentials: boolean): ExchangeReplicaError {
  const where = urls.map(redactNatsUrl).join(', ');
  if (isAuthRefusal(cause)) {
    const why = credentials
      ? 'the credentials given were refused (wrong, expired, or for another server)'
      : 'no credentials were given and this server requires them: give natsAuth (CLI: --nats-creds, --nats-nkey, --nats-user and --nats-password, or --nats-token; or NATS_CREDS, NATS_NKEY, NATS_USER and NATS_PASSWORD, NATS_TOKEN)';
    return new ExchangeReplicaError('ERR_BUS_AUTH', `NATS at ${where} refused the connection: authorization violation: ${why}`, {}, { cause });
  }
  const tls = isTlsRefusal(cause) ? 'TLS failed (give the CA of the server certificate: natsAuth.caFile, CLI --nats-ca or NATS_CA): ' : '';
  return new ExchangeReplicaError('ERR_BUS', `cannot connect to NATS at ${where}: ${tls}${(cause as Error)?.message ?? String(cause)}`, {}, { cause });
}

/**
 * `error` as `ERR_BUS_PERMISSION` when NATS refused the operation to these credentials
 * (`what` says what was attempted), undefined otherwise.
 */
export function permissionError(error: unknown, what: string): ExchangeReplicaError | undefined {
  const refusal = permissionRefusal(error);
  if (refusal === undefined) return undefined;
  if (error instanceof ExchangeReplicaError && error.code === 'ERR_BUS_PERMISSION') return error;
  return new ExchangeReplicaError('ERR_BUS_PERMISSION', `NATS refused ${what} to these credentials: ${refusal.message} (their role may not do this; see examples/nats/roles.conf)`, {}, { cause: error });
}
