/**
 * The simulator's stream hub: one contiguous sequence per stream (channel + scope), shared
 * by every subscriber and by the REST snapshots of that stream. @internal
 */
import { streamKey, writeUpdateData, type ChannelName, type Scope } from '../protocol';
import type { StreamEvent, StreamHub } from './StreamHub';

export class SimStreamHub implements StreamHub {
  private readonly seqs = new Map<string, bigint>();
  private readonly listeners = new Set<(event: StreamEvent) => void>();

  seq(key: string): bigint {
    return this.seqs.get(key) ?? 0n;
  }

  publish(channel: ChannelName, scope: Scope, data: unknown): StreamEvent {
    const key = streamKey(channel, scope);
    const seq = (this.seqs.get(key) ?? 0n) + 1n;
    this.seqs.set(key, seq);
    const event: StreamEvent = { channel, scope, key, seq, data, dataJson: writeUpdateData(channel, data) };
    for (const l of this.listeners) l(event);
    return event;
  }

  onEvent(listener: (event: StreamEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
