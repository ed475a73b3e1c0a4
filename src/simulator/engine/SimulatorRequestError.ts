import { ExchangeReplicaError } from '../../errors';

/**
 * A bad call of the engine's own API (`placeOrder`, `cancelOrder`): unknown market or
 * account, a paused market, a bad size or price, insufficient balance.
 */
export class SimulatorRequestError extends ExchangeReplicaError {
  constructor(message: string) {
    super('ERR_SIM_REQUEST', message);
  }
}
