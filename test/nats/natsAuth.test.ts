/**
 * NATS credentials and TLS options (src/nats/natsAuth.ts) and the CLI's flags for them
 * (src/cli/natsAuthFlags.ts), without a server: one kind of credentials, a password only with
 * its user, a seed or a file checked before any connection, URLs carrying credentials refused,
 * and no secret ever in a message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nkeys } from '@nats-io/transport-node';
import { InvalidParameterError } from '../../src/errors';
import { natsAuthFromFlags } from '../../src/cli/natsAuthFlags';
import { checkNatsAuth, checkNatsUrls, connectError, natsAuthOptions, permissionError, redactNatsUrl } from '../../src/nats/natsAuth';
import { loadNats } from '../../src/nats/natsModules';

const SECRET = 'pw-very-secret-77';
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'er-nats-auth-unit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

test('one kind of credentials, a password with its user, a certificate with its key', () => {
  expect(() => checkNatsAuth({ user: 'a', password: SECRET })).not.toThrow();
  const both = thrown(() => checkNatsAuth({ user: 'a', password: SECRET, token: SECRET }));
  expect(both).toBeInstanceOf(InvalidParameterError);
  expect(both.message).toBe("invalid option 'natsAuth': give one kind of credentials, not user and password and token");
  expect(thrown(() => checkNatsAuth({ password: SECRET })).message).toMatch(/'natsAuth.user': a password needs its user/);
  expect(thrown(() => checkNatsAuth({ certFile: '/x.pem' })).message).toMatch(/needs its key/);
  expect(thrown(() => checkNatsAuth({ token: '' })).message).toMatch(/'natsAuth.token': expected a non-empty string/);
});

test('a URL carrying credentials is refused without repeating them; a URL is printed without them', () => {
  const e = thrown(() => checkNatsUrls(`nats://relay:${SECRET}@127.0.0.1:4222`));
  expect(e).toBeInstanceOf(InvalidParameterError);
  expect(e.message).toMatch(/must not carry credentials/);
  expect(e.message).not.toContain(SECRET);
  expect(checkNatsUrls(' nats://127.0.0.1:4222 ,'.split(',').slice(0, 1))).toEqual(['nats://127.0.0.1:4222']);
  expect(redactNatsUrl(`tls://${SECRET}@host:4222`)).toBe('tls://***@host:4222');
  expect(connectError(new Error('connection refused'), [`nats://${SECRET}@h:1`], false).message).not.toContain(SECRET);
});

test('a seed or a file is checked before connecting, never repeated; TLS from tls:// or a CA file', async () => {
  const mods = await loadNats();
  const seed = new TextDecoder().decode(nkeys.createUser().getSeed());
  expect(natsAuthOptions(mods, { nkeySeed: seed }, ['nats://h:1']).authenticator).toBeInstanceOf(Function);
  const seedFile = join(dir, 'user.seed');
  writeFileSync(seedFile, `${seed}\n`);
  expect(natsAuthOptions(mods, { nkeySeedFile: seedFile }, ['nats://h:1']).authenticator).toBeInstanceOf(Function);
  const bad = thrown(() => natsAuthOptions(mods, { nkeySeed: 'SUNOTASEED' + SECRET }, ['nats://h:1']));
  expect({ message: bad.message, leaks: bad.message.includes(SECRET) }).toEqual({ message: "invalid option 'natsAuth.nkeySeed': not an NKey seed (expected the text of a seed, SU...)", leaks: false });
  const credsFile = join(dir, 'bad.creds');
  writeFileSync(credsFile, SECRET);
  const creds = thrown(() => natsAuthOptions(mods, { credsFile }, ['nats://h:1']));
  expect(creds.message).toMatch(/'natsAuth.credsFile': .* is not a NATS \.creds file/);
  expect(creds.message).not.toContain(SECRET);
  expect(thrown(() => natsAuthOptions(mods, { credsFile: join(dir, 'missing.creds') }, ['nats://h:1'])).message).toMatch(/cannot read .*missing\.creds.*: ENOENT/);
  expect(natsAuthOptions(mods, undefined, ['tls://h:1']).tls).toEqual({});
  expect(natsAuthOptions(mods, undefined, ['nats://h:1']).tls).toBeUndefined();
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, 'not read here beyond its existence');
  expect(natsAuthOptions(mods, { caFile: ca }, ['nats://h:1']).tls).toEqual({ caFile: ca });
});

test('a refusal of NATS becomes ERR_BUS_PERMISSION; other errors are left as they are', () => {
  const pe = Object.assign(new Error('Permissions Violation for Publish to "er.u.x"'), { name: 'PermissionViolationError' });
  const wrapped = new Error('request failed', { cause: pe });
  expect(permissionError(wrapped, 'a publish')?.code).toBe('ERR_BUS_PERMISSION');
  expect(permissionError(new Error('timeout'), 'a publish')).toBeUndefined();
});

describe('CLI flags', () => {
  test('a flag wins over its variable; none given is undefined; conflicts and halves are usage errors naming flags only', () => {
    expect(natsAuthFromFlags({}, {})).toBeUndefined();
    expect(natsAuthFromFlags({}, { NATS_USER: 'u', NATS_PASSWORD: SECRET })).toEqual({ user: 'u', password: SECRET });
    expect(natsAuthFromFlags({ natsUser: 'flag-user' }, { NATS_USER: 'u', NATS_PASSWORD: SECRET })).toEqual({ user: 'flag-user', password: SECRET });
    expect(natsAuthFromFlags({ natsCreds: '/c.creds', natsCa: '/ca.pem' }, {})).toEqual({ credsFile: '/c.creds', caFile: '/ca.pem' });
    expect(natsAuthFromFlags({ natsNkey: '/u.seed' }, {})).toEqual({ nkeySeedFile: '/u.seed' });
    const conflict = thrown(() => natsAuthFromFlags({ natsToken: SECRET }, { NATS_CREDS: '/c.creds' }));
    expect(conflict.message).toBe('give one kind of NATS credentials, not --nats-creds (NATS_CREDS) and --nats-token (NATS_TOKEN)');
    expect(thrown(() => natsAuthFromFlags({}, { NATS_PASSWORD: SECRET })).message).toBe('--nats-password (NATS_PASSWORD) needs --nats-user (NATS_USER)');
    expect(thrown(() => natsAuthFromFlags({ natsUser: 'u' }, {})).message).toBe('--nats-user (NATS_USER) needs --nats-password (NATS_PASSWORD)');
    expect(thrown(() => natsAuthFromFlags({ natsCert: '/c.pem' }, {})).message).toMatch(/--nats-cert \(NATS_CERT\) and --nats-key \(NATS_KEY\) go together/);
  });
});
