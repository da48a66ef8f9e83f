/**
 * Who transcribes now: a fixed number of session slots (`REALTIME_MAX_SESSIONS`) and a first-come wait line
 * (`REALTIME_MAX_WAITING`) for the sockets that find every slot busy. A socket in the line stays silent (the spec:
 * the client's own deadline reports `capacity_exceeded`); once the line is full new sockets are refused.
 */
export interface SlotLease {
  /** Gives the slot to the next in line; a second call does nothing. */
  release(): void;
}

export class Admission {
  private active = 0;
  private readonly waiting: {
    grant: (lease: SlotLease) => void; refuse: (reason: unknown) => void; signal: AbortSignal; onAbort: () => void;
  }[] = [];

  constructor(
    private readonly maxSessions: number,
    private readonly maxWaiting: number,
  ) {
    if (maxSessions < 1) throw new Error('REALTIME_MAX_SESSIONS must be at least 1');
  }

  /** True when a new socket would find every slot busy and the wait line full. */
  get full(): boolean {
    return this.active >= this.maxSessions && this.waiting.length >= this.maxWaiting;
  }

  /** Waits (first come, first served) for a slot. Rejects with the abort reason when `signal` fires first. */
  acquire(signal: AbortSignal): Promise<SlotLease> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.active < this.maxSessions && this.waiting.length === 0) return Promise.resolve(this.lease());
    return new Promise((resolve, reject) => {
      const entry = {
        grant: resolve,
        refuse: reject,
        signal,
        onAbort: () => {
          const index = this.waiting.indexOf(entry);
          if (index !== -1) this.waiting.splice(index, 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener('abort', entry.onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  /** Drops the wait line (the server is shutting down): every waiting socket's acquire rejects. */
  drain(): void {
    for (const entry of this.waiting.splice(0)) {
      entry.signal.removeEventListener('abort', entry.onAbort);
      entry.refuse(new Error('The server is shutting down.'));
    }
  }

  load(): { active: number; waiting: number; maxSessions: number } {
    return { active: this.active, waiting: this.waiting.length, maxSessions: this.maxSessions };
  }

  private lease(): SlotLease {
    this.active += 1;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.active -= 1;
        this.grantNext();
      },
    };
  }

  private grantNext(): void {
    while (this.active < this.maxSessions && this.waiting.length > 0) {
      const entry = this.waiting.shift()!;
      entry.signal.removeEventListener('abort', entry.onAbort);
      entry.grant(this.lease());
    }
  }
}
