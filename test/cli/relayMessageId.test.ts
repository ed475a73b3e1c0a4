/**
 * The JetStream message id of the relay's batches, said the same way by the code, the relay's
 * --help and the README (issue item 5): `<streamKey>#<first>-<last>`, one id per batch of
 * updates `first..last` (the help used to say `<streamKey>#<seq>`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageId } from '../../src/nats/busProtocol';
import { runProgram } from './runProgram';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
const SAID = '<streamKey>#<first>-<last>';

it('the id of a batch is <streamKey>#<first>-<last>', () => {
  expect(messageId('book|market_id=0|is_perps=true', 10n, 12n)).toBe('book|market_id=0|is_perps=true#10-12');
  expect(messageId('bbo|market_id=3|is_perps=false', 7n, 7n)).toBe('bbo|market_id=3|is_perps=false#7-7');
});

it('relay --help says so', async () => {
  const help = await runProgram(['relay', '--help']);
  expect(help.code).toBe(0);
  expect(help.stdout.replace(/\s+/g, ' ')).toContain(`message id ${SAID}`);
  expect(help.stdout).not.toMatch(/#<seq>/);
});

it('the README says so, wherever it names the id', () => {
  const named = README.match(/<streamKey>#<[^>]+>(?:-<[^>]+>)?/g) ?? [];
  expect(named.length).toBeGreaterThanOrEqual(2);
  expect(new Set(named)).toEqual(new Set([SAID]));
});
