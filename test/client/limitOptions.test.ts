/** The size limits of the REST client and the feed connection are set through ExchangeClient's options. */
import { ExchangeClient } from '../../src/client';

describe('ExchangeClient: size limits', () => {
  test('ExchangeClient passes maxResponseBytes and maxFrameBytes through', () => {
    const client = new ExchangeClient({ restUrl: 'http://127.0.0.1:9', rest: { maxResponseBytes: 5678 }, connection: { maxFrameBytes: 1234 } });
    try {
      expect(client.rest.options.maxResponseBytes).toBe(5678);
      expect(client.connection.options.maxFrameBytes).toBe(1234);
    } finally {
      client.close();
    }
  });

  test('the defaults apply when nothing is set', () => {
    const client = new ExchangeClient({ restUrl: 'http://127.0.0.1:9' });
    try {
      expect(client.rest.options.maxResponseBytes).toBe(64 * 1024 * 1024);
      expect(client.connection.options.maxFrameBytes).toBe(16 * 1024 * 1024);
    } finally {
      client.close();
    }
  });
});
