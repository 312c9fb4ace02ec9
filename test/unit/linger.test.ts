/**
 * The lingering closes' shared reading (src/node/linger.ts): the byte budget's arithmetic with the clock passed in,
 * and the lingering sockets' turns with a fake socket and a hand-moved clock — which are paused when the budget is
 * spent, which resume and in what order, the oldest ended past the cap, the bounds of one. Nothing is timed: the
 * budget's refills are driven by the clock given, and vitest's fake timers stand for the waits.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ByteBudget, type LingerSocket, LingeringReads } from '../../src/node/linger.js';

describe('ByteBudget', () => {
  it('spends down to its burst, owes past it, and fills at its rate up to the burst', () => {
    const b = new ByteBudget(1000, 500, 0);
    expect(b.spend(400, 0)).toBe(true);
    expect(b.left(0)).toBe(100);
    expect(b.spend(400, 0)).toBe(false);
    expect(b.left(0)).toBe(-300);
    // 1 byte a ms: out of debt after 301 ms
    expect(b.waitMs(0)).toBe(301);
    expect(b.waitMs(301)).toBe(0);
    expect(b.left(301)).toBe(1);
    // never more than the burst, however long it waited
    expect(b.left(1_000_000)).toBe(500);
  });

  it('a clock that goes back fills nothing', () => {
    const b = new ByteBudget(1000, 500, 100);
    b.spend(500, 100);
    expect(b.left(50)).toBe(0);
    expect(b.left(100)).toBe(0);
    expect(b.left(110)).toBe(10);
  });

  it('over a long run it reads at its rate, whatever the read sizes', () => {
    const b = new ByteBudget(32 << 20, 1 << 20, 0);
    let now = 0;
    let read = 0;
    const sizes = [65536, 1, 4096, 65536, 16384, 777];
    for (let i = 0; i < 20_000; i++) {
      now += b.waitMs(now);
      const n = sizes[i % sizes.length];
      b.spend(n, now);
      read += n;
    }
    // read ≤ burst + rate × time (+ the last read, spent before it was owed)
    expect(read).toBeLessThanOrEqual((1 << 20) + ((32 << 20) * now) / 1000 + 65536);
    expect(read).toBeGreaterThan(((32 << 20) * now) / 1000 - 65536);
  });
});

/** A socket as LingeringReads uses it: it records pauses and resumes, and a test makes it receive or end. */
class FakeSocket extends EventEmitter implements LingerSocket {
  destroyed = false;
  _paused?: boolean;
  paused = false;
  readableFlowing: boolean | null = null;
  pause(): this {
    this.paused = true;
    this.readableFlowing = false;
    return this;
  }
  /** As a Readable: 'resume' is emitted when a paused socket flows again (node emits it a tick later). */
  resume(): this {
    const was = this.readableFlowing;
    this.paused = false;
    this.readableFlowing = true;
    if (was === false) this.emit('resume');
    return this;
  }
  destroy(): this {
    if (!this.destroyed) {
      this.destroyed = true;
      this.emit('close');
    }
    return this;
  }
  /** The client sends `bytes`: delivered only while the socket is not paused (else TCP holds them). */
  receive(bytes: number): boolean {
    if (this.paused || this.destroyed) return false;
    this.emit('data', new Uint8Array(bytes));
    return true;
  }
}

describe('LingeringReads', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 0;
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const BOUNDS = { ms: 5000, bytes: 64 << 20 };

  it('takes the parser\'s "data" listener off and reads the socket itself', () => {
    const lingering = new LingeringReads(1 << 20, 8, clock, 1 << 20);
    const s = new FakeSocket();
    const parser = vi.fn();
    s.on('data', parser);
    lingering.add(s, BOUNDS);
    s.receive(100);
    expect(parser).not.toHaveBeenCalled();
    expect(lingering.size).toBe(1);
  });

  it('a socket the server paused is taken over once it has resumed', () => {
    const lingering = new LingeringReads(1 << 20, 8, clock, 1 << 20);
    const s = new FakeSocket();
    s.pause();
    const parser = vi.fn();
    s.on('data', parser);
    // the server's own 'resume' listener runs before the takeover: it still sees the parser's listener
    const seen: number[] = [];
    s.on('resume', () => seen.push(s.listenerCount('data')));
    lingering.add(s, BOUNDS);
    expect(seen).toEqual([1]);
    expect(s.paused).toBe(false);
    s.receive(100);
    expect(parser).not.toHaveBeenCalled();
  });

  it('a socket the server paused for being behind on writing is read too, not paused again by its resume', () => {
    const lingering = new LingeringReads(1 << 20, 8, clock, 1 << 20);
    const s = new FakeSocket();
    // as node's HTTP server does: behind on writing it marks and pauses the socket, and its own 'resume' listener
    // pauses the socket again while the mark is set
    s._paused = true;
    s.pause();
    s.on('resume', () => {
      if (s._paused) s.pause();
    });
    s.on('data', vi.fn());
    lingering.add(s, BOUNDS);
    expect(s._paused).toBe(false);
    expect(s.paused).toBe(false);
    expect(s.receive(100)).toBe(true);
    // its time is not waited out for want of reading: the client's end ends it
    s.emit('end');
    expect(s.destroyed).toBe(true);
  });

  it('pauses a socket that spends the budget and resumes it when the budget has filled', () => {
    const lingering = new LingeringReads(65536, 8, clock, 65536); // 64 KiB a second
    const s = new FakeSocket();
    lingering.add(s, BOUNDS);
    expect(s.receive(32768)).toBe(true);
    expect(s.paused).toBe(false);
    expect(s.receive(32768)).toBe(true); // the budget is spent
    expect(s.paused).toBe(true);
    expect(lingering.waiting).toBe(1);
    expect(s.receive(1)).toBe(false);
    // one byte's worth later it may read again
    now += 1;
    vi.advanceTimersByTime(1);
    expect(s.paused).toBe(false);
    expect(lingering.waiting).toBe(0);
  });

  it('waiting sockets resume in the order they waited: none reads twice before another once', () => {
    const lingering = new LingeringReads(65536, 8, clock, 65536);
    const sockets = [new FakeSocket(), new FakeSocket(), new FakeSocket()];
    for (const s of sockets) lingering.add(s, BOUNDS);
    const order: number[] = [];
    // each socket, when it may, reads a whole budget's worth and waits again
    for (let turn = 0; turn < 9; turn++) {
      sockets.forEach((s, i) => {
        if (s.receive(65536)) order.push(i);
      });
      now += 1000;
      vi.advanceTimersByTime(1000);
    }
    expect(order.length).toBeGreaterThanOrEqual(6);
    for (let i = 3; i < order.length; i++) expect(order[i]).toBe(order[i - 3]);
    expect(new Set(order.slice(0, 3))).toEqual(new Set([0, 1, 2]));
  });

  it('past the cap the longest lingering socket is ended', () => {
    const lingering = new LingeringReads(1 << 20, 2, clock, 1 << 20);
    const [a, b, c] = [new FakeSocket(), new FakeSocket(), new FakeSocket()];
    lingering.add(a, BOUNDS);
    lingering.add(b, BOUNDS);
    expect(a.destroyed).toBe(false);
    lingering.add(c, BOUNDS);
    expect(a.destroyed).toBe(true);
    expect([b.destroyed, c.destroyed]).toEqual([false, false]);
    expect(lingering.size).toBe(2);
  });

  it("ends a socket at the client's end, at its time, or past its bytes", () => {
    const lingering = new LingeringReads(1 << 30, 8, clock, 1 << 30);
    const ended = new FakeSocket();
    const late = new FakeSocket();
    const large = new FakeSocket();
    lingering.add(ended, BOUNDS);
    lingering.add(late, BOUNDS);
    lingering.add(large, { ms: 5000, bytes: 100_000 });
    ended.emit('end');
    expect(ended.destroyed).toBe(true);
    large.receive(65536);
    expect(large.destroyed).toBe(false);
    large.receive(65536);
    expect(large.destroyed).toBe(true);
    vi.advanceTimersByTime(4999);
    expect(late.destroyed).toBe(false);
    vi.advanceTimersByTime(1);
    expect(late.destroyed).toBe(true);
    expect(lingering.size).toBe(0);
  });

  it('a socket of 0 bytes is not read: it waits paused until its time', () => {
    const lingering = new LingeringReads(1 << 20, 8, clock, 1 << 20);
    const s = new FakeSocket();
    const parser = vi.fn();
    s.on('data', parser);
    lingering.add(s, { ms: 5000, bytes: 0 });
    expect(s.paused).toBe(true);
    vi.advanceTimersByTime(5000);
    expect(s.destroyed).toBe(true);
  });

  it('a socket that closes while it waits leaves the line', () => {
    const lingering = new LingeringReads(65536, 8, clock, 65536);
    const [a, b] = [new FakeSocket(), new FakeSocket()];
    lingering.add(a, BOUNDS);
    lingering.add(b, BOUNDS);
    a.receive(65536);
    expect(lingering.waiting).toBe(1);
    a.destroy();
    expect(lingering.waiting).toBe(0);
    expect(lingering.size).toBe(1);
    lingering.close();
    expect(b.destroyed).toBe(true);
  });
});
