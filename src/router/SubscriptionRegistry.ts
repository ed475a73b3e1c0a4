/**
 * The router's book of streams: one entry per canonical stream key, shared by all its
 * subscribers (reference counted through the entry's observer set), and the server
 * subscription ids of the current connection.
 */
import type { ChannelName, Scope } from '../protocol';
import { StreamEntry } from './StreamEntry';

export class SubscriptionRegistry {
  private readonly byKey = new Map<string, StreamEntry>();
  private readonly byId = new Map<string, StreamEntry>();
  /** Ids we unsubscribed on this connection: frames still in flight for them are expected, not errors. */
  private readonly retired = new Set<string>();
  /** Subscribe requests that timed out: a late ack must be undone (else the server keeps a subscription nobody owns). */
  private readonly abandoned = new Set<string>();

  /** Server subscriptions this router owns on the current connection. */
  get activeCount(): number {
    return this.byId.size;
  }

  /** The entry of `key`, created if needed. */
  acquire(key: string, channel: ChannelName, scope: Scope): StreamEntry {
    let entry = this.byKey.get(key);
    if (entry === undefined) {
      entry = new StreamEntry(key, channel, scope);
      this.byKey.set(key, entry);
    }
    return entry;
  }

  /** True when `entry` is still the registered entry of its key. */
  isCurrent(entry: StreamEntry): boolean {
    return this.byKey.get(entry.key) === entry;
  }

  entries(): IterableIterator<StreamEntry> {
    return this.byKey.values();
  }

  /** The server acknowledged `entry` with `subscriptionId`. */
  activate(entry: StreamEntry, subscriptionId: string, generation: number): void {
    entry.phase = 'active';
    entry.subscriptionId = subscriptionId;
    entry.generation = generation;
    this.byId.set(subscriptionId, entry);
  }

  /** The stream of a server id on the current connection. Hot path: one map lookup. */
  lookup(subscriptionId: string): StreamEntry | undefined {
    return this.byId.get(subscriptionId);
  }

  /** Removes `entry` and unbinds its id (if any). */
  forget(entry: StreamEntry): void {
    if (this.byKey.get(entry.key) === entry) this.byKey.delete(entry.key);
    if (entry.subscriptionId !== undefined && this.byId.get(entry.subscriptionId) === entry) this.byId.delete(entry.subscriptionId);
    entry.phase = 'idle';
    entry.subscriptionId = undefined;
  }

  /** Marks a server id as being unsubscribed. */
  retire(subscriptionId: string): void {
    this.retired.add(subscriptionId);
  }

  isRetired(subscriptionId: string): boolean {
    return this.retired.has(subscriptionId);
  }

  /** The server confirmed (or denied knowing) a retired id: no frame of it can follow. */
  settleRetired(subscriptionId: string): void {
    this.retired.delete(subscriptionId);
  }

  abandon(requestId: string): void {
    this.abandoned.add(requestId);
  }

  /** True (once) when `requestId` is a subscribe request that timed out. */
  takeAbandoned(requestId: string): boolean {
    return this.abandoned.delete(requestId);
  }

  /**
   * The socket is gone: every server id is void, every entry goes back to `idle`, and
   * entries nobody holds any more are forgotten.
   */
  resetConnection(): void {
    this.byId.clear();
    this.retired.clear();
    this.abandoned.clear();
    for (const entry of this.byKey.values()) {
      entry.phase = 'idle';
      entry.subscriptionId = undefined;
      if (entry.observers.size === 0) this.byKey.delete(entry.key);
    }
  }

  /** Forgets everything; returns the entries that were registered. */
  clear(): StreamEntry[] {
    const all = [...this.byKey.values()];
    this.byKey.clear();
    this.resetConnection();
    return all;
  }
}
