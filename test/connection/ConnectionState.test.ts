import { EventEmitter } from 'eventemitter3';
import { ConnectionState, IllegalStateTransitionError, type StateChange } from '../../src/connection';

function machine() {
  const emitter = new EventEmitter<{ state: (c: StateChange) => void }>();
  const seen: string[] = [];
  emitter.on('state', (c) => seen.push(`${c.from}>${c.to}:${c.reason}`));
  return { m: new ConnectionState(emitter), emitter, seen };
}

describe('ConnectionState', () => {
  test('illegal transitions throw and leave the state unchanged', () => {
    const { m, seen } = machine();
    expect(() => m.setState('open', 'skip connecting')).toThrow(IllegalStateTransitionError);
    expect(() => m.setState('idle', 'same')).toThrow(/illegal connection state transition idle -> idle/);
    expect(m.value).toBe('idle');
    m.setState('connecting', 'go');
    m.setState('failed', 'refused');
    expect(() => m.setState('reconnecting', 'after failed')).toThrow(IllegalStateTransitionError);
    m.setState('closed', 'bye');
    expect(() => m.setState('connecting', 'after closed')).toThrow(IllegalStateTransitionError);
    expect(seen).toEqual(['idle>connecting:go', 'connecting>failed:refused', 'failed>closed:bye']);
  });

  test('a change made by a listener is announced after the one being announced', () => {
    const { m, emitter, seen } = machine();
    emitter.on('state', (c) => {
      if (c.to === 'open') m.setState('closed', 'closed from a listener');
    });
    const viaSubject: string[] = [];
    m.state$.subscribe((c) => viaSubject.push(c.to));
    m.setState('connecting', 'a');
    m.setState('open', 'b');
    expect(m.value).toBe('closed');
    expect(seen).toEqual(['idle>connecting:a', 'connecting>open:b', 'open>closed:closed from a listener']);
    expect(viaSubject).toEqual(['idle', 'connecting', 'open', 'closed']);
  });
});
