/**
 * The reading of lingering closes, shared by the connections of one server (src/node/serve.ts). An answer given
 * before its request body was read (401, 413, 429, 503) closes a connection with a large rest lingering: what the
 * client still sends is read and dropped, so that closing on unread input does not reset the connection and destroy
 * the answer before a client that sends its whole body first (Python's `urllib`) reads it.
 *
 * Unbounded, that reading was the cost of a refused flood: one account whose day of calls was spent, sending 40 bodies
 * of 1,029,996 bytes at once again and again, had the server read and drop about 0.6 GB a second, each refused
 * connection read to its end (its rest kept coming from the client's kernel after the client had its answer and
 * closed). Here all lingering connections together are read at most {@link LINGER_BYTES_A_SECOND}, in turn; a
 * connection over its share waits paused (TCP's flow control holds the client), and at most
 * {@link MAX_LINGERING} linger at once: a new one past it ends the one that has lingered longest, which has had
 * the most time to read its answer.
 *
 * @example
 * const lingering = new LingeringReads()
 * lingering.add(socket, { ms: 5000, bytes: 64 << 20 }) // after `socket.end()`: its answer is on its way
 */
/** Bytes a second all lingering connections of a server are read at together (32 MiB). */
export const LINGER_BYTES_A_SECOND = 32 << 20;
/** Bytes the budget may hold unspent: what one lingering connection reads at once when no other lingers. */
export const LINGER_BURST_BYTES = 1 << 20;
/** Connections that may linger at once; a new one past this ends the oldest. */
export const MAX_LINGERING = 256;

/**
 * A budget of bytes a second (a token bucket): what is read is spent, and the budget fills again at its rate up to
 * its burst. Time is passed in (ms, any monotonic clock), so the same calls give the same answers.
 *
 * @example
 * const budget = new ByteBudget(1000, 500, 0) // 1,000 bytes a second, 500 at once
 * budget.spend(400, 0) // true: 100 left
 * budget.spend(400, 0) // false: 300 owed
 * budget.waitMs(0) // 301: until it is out of debt
 */
export class ByteBudget {
  #left: number;
  #at: number;
  constructor(
    readonly bytesPerSecond: number,
    readonly burst: number,
    now: number,
  ) {
    this.#left = burst;
    this.#at = now;
  }

  /** Spend `bytes` read at `now`: true while the budget has bytes left, false when the reader must wait. */
  spend(bytes: number, now: number): boolean {
    this.#fill(now);
    this.#left -= bytes;
    return this.#left > 0;
  }

  /** Milliseconds from `now` until the budget has a byte left (0 when it has). */
  waitMs(now: number): number {
    this.#fill(now);
    return this.#left > 0 ? 0 : Math.ceil(((1 - this.#left) * 1000) / this.bytesPerSecond);
  }

  /** Bytes left to spend at `now` (negative: owed). */
  left(now: number): number {
    this.#fill(now);
    return this.#left;
  }

  #fill(now: number): void {
    if (now <= this.#at) return;
    this.#left = Math.min(this.burst, this.#left + ((now - this.#at) * this.bytesPerSecond) / 1000);
    this.#at = now;
  }
}

/** How long one connection lingers, and how much of it is read, at most. */
export interface LingerBounds {
  /** Milliseconds from the answer until the socket is destroyed if the client has not closed. */
  readonly ms: number;
  /** Bytes read from it while it lingers before it is destroyed; 0: it is not read at all, it waits paused. */
  readonly bytes: number;
}

/** The socket a lingering connection is read from: what {@link LingeringReads} uses of a `net.Socket`. */
export interface LingerSocket {
  readonly destroyed: boolean;
  readonly readableFlowing: boolean | null;
  /**
   * Node's HTTP server's mark of a socket it paused because it was behind on writing its answers (a pipelined request
   * is not parsed until they are out); while it is set, the server pauses the socket again on each 'resume'.
   */
  _paused?: boolean;
  on(event: string, listener: (chunk: Uint8Array) => void): unknown;
  once(event: string, listener: () => void): unknown;
  removeAllListeners(event: string): unknown;
  pause(): unknown;
  resume(): unknown;
  destroy(): unknown;
}

/** See the module's documentation. */
export class LingeringReads {
  /** The lingering sockets, oldest first (a Set keeps the order they were added in). */
  readonly #sockets = new Set<LingerSocket>();
  /** Sockets paused for the budget, in the order they resume. */
  #waiting: LingerSocket[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  readonly #budget: ByteBudget;

  constructor(
    readonly bytesPerSecond = LINGER_BYTES_A_SECOND,
    readonly maxSockets = MAX_LINGERING,
    private readonly clock: () => number = () => performance.now(),
    burst = LINGER_BURST_BYTES,
  ) {
    this.#budget = new ByteBudget(bytesPerSecond, burst, clock());
  }

  /** Connections lingering now. */
  get size(): number {
    return this.#sockets.size;
  }

  /** Connections paused now for the budget. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Read and drop what `socket` still receives, within `bounds` and the shared budget, until the client closes; then
   * (or at a bound) destroy it. The HTTP parser's reading is taken off the socket first: nothing it receives now is
   * a request.
   */
  add(socket: LingerSocket, bounds: LingerBounds): void {
    if (socket.destroyed) return; // a reset by the client came first: nothing to read, no 'close' to wait for
    if (this.#sockets.size >= this.maxSockets) {
      const oldest = this.#sockets.values().next().value;
      if (oldest) this.#end(oldest);
    }
    this.#sockets.add(socket);
    let read = 0;
    const stop = () => this.#end(socket);
    const timer = setTimeout(stop, bounds.ms);
    timer.unref?.();
    socket.once('close', () => {
      clearTimeout(timer);
      this.#forget(socket);
    });
    if (bounds.bytes === 0) return void socket.pause();
    // node's HTTP server reads the socket through its parser, which drops a body whose request has been answered with
    // no event to count or pace it by: its 'data' listener goes, and one of ours takes the reads over (adding a
    // 'data' listener takes the socket from the parser). A socket the server paused is resumed first, while the
    // server still handles its 'resume' (it starts the reads), and taken over once it has. A socket it paused for
    // being behind on writing would be paused again by that very handling, and never read: nothing more is written
    // to a lingering socket, nor parsed from it, so that mark goes first.
    if (socket._paused) socket._paused = false;
    const onData = (chunk: Uint8Array) => {
      read += chunk.byteLength;
      if (read > bounds.bytes) return stop();
      if (!this.#budget.spend(chunk.byteLength, this.clock())) this.#wait(socket);
    };
    const takeOver = () => {
      socket.removeAllListeners('data');
      socket.on('data', onData);
    };
    if (socket.readableFlowing === false) socket.once('resume', takeOver);
    else takeOver();
    // the client's FIN: nothing more comes
    socket.once('end', stop);
    socket.resume();
  }

  /** Destroy every lingering socket (the server has closed). */
  close(): void {
    for (const socket of [...this.#sockets]) this.#end(socket);
  }

  #end(socket: LingerSocket): void {
    this.#forget(socket);
    if (!socket.destroyed) socket.destroy();
  }

  #forget(socket: LingerSocket): void {
    if (!this.#sockets.delete(socket)) return;
    const at = this.#waiting.indexOf(socket);
    if (at >= 0) this.#waiting.splice(at, 1);
    if (this.#waiting.length === 0 && this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
  }

  #wait(socket: LingerSocket): void {
    socket.pause();
    if (!this.#waiting.includes(socket)) this.#waiting.push(socket);
    this.#arm();
  }

  #arm(): void {
    if (this.#timer !== null || this.#waiting.length === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#turn();
    }, this.#budget.waitMs(this.clock()));
    this.#timer.unref?.();
  }

  /**
   * Resume waiting sockets in turn: one for each read's worth (64 KiB) the budget holds, at least one; a resumed
   * socket that overspends waits again at the back of the line.
   */
  #turn(): void {
    const left = this.#budget.left(this.clock());
    let resume = Math.max(1, Math.floor(left / READ_BYTES));
    while (resume-- > 0 && this.#waiting.length > 0) (this.#waiting.shift() as LingerSocket).resume();
    this.#arm();
  }
}

/** What one read of a socket brings at most (libuv reads 64 KiB at a time). */
const READ_BYTES = 64 << 10;
