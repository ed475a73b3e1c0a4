/**
 * Child of NodeWebSocket.tls.test.ts: connects to the `wss:` URL in argv[2] (the test's CA
 * trusted through NODE_EXTRA_CA_CERTS, read by Node at start-up), sends one message and
 * prints what comes back, then what the close says.
 */
import { NodeWebSocket } from '../../src/connection/node/NodeWebSocket';

const ws = new NodeWebSocket(process.argv[2]!, { maxPayload: 1 << 20, perMessageDeflate: false });
ws.on('open', () => {
  console.log('open');
  ws.send('hello over tls');
});
ws.on('message', (data) => {
  console.log(`message ${String(data)}`);
  ws.close(1000, 'bye');
});
ws.on('error', (e) => console.log(`error ${e.message}`));
ws.on('close', (code) => console.log(`close ${code}`));
