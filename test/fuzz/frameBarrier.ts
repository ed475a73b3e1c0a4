/** A frame barrier for the fuzzers: the server sends an unsolicited pong; once the client has seen it, every frame sent before it was processed. */
import { firstValueFrom, Observable, timeout } from 'rxjs';
import type { ExchangeClient } from '../../src';
import type { ServerConnection } from '../helpers/WsTestServer';
import { WAIT_MS } from '../helpers/deadlines';

export async function frameBarrier(client: ExchangeClient, conn: ServerConnection, requestId: string, timestampNs: string): Promise<void> {
  const got = firstValueFrom(
    new Observable<void>((s) => {
      const on = (text: string) => text.includes(`"${requestId}"`) && s.next();
      client.connection.on('message', on);
      return () => client.connection.off('message', on);
    }).pipe(timeout(WAIT_MS)),
  );
  conn.send({ type: 'pong', request_id: requestId, timestamp_ns: timestampNs });
  await got;
}
