/** A command-line mistake found after parsing (e.g. a missing combination of flags). @internal */
import { ExchangeReplicaError } from '../errors';

export class CliUsageError extends ExchangeReplicaError {
  constructor(message: string) {
    super('ERR_CLI_USAGE', message);
  }
}
