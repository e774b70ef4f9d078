/**
 * Reads of the same thing asked at once share one query, without ever answering a
 * request with a read that began before it arrived: a client that wrote and then reads
 * sees its write. A request joins the read under way only when it began after the
 * request came; otherwise it joins the one read queued behind it. So a key has at most
 * two reads at a time however many ask: 2,000 clients waiting on one order are two
 * queries on the pool, not 4,000 queued before everyone else's.
 */
export class FreshReads<T> {
  private readonly slots = new Map<string, Slot<T>>();

  /** keys with a read under way or queued (for tests and metrics) */
  get busy(): number {
    return this.slots.size;
  }

  read(key: string, read: () => Promise<T>): Promise<T> {
    const asked = performance.now();
    let slot = this.slots.get(key);
    if (!slot) {
      slot = {};
      this.slots.set(key, slot);
    }
    if (slot.current && slot.current.at >= asked) return slot.current.answer;
    if (slot.next) return slot.next;
    if (!slot.current) return this.start(key, slot, read);
    const queued = slot;
    const settled = () => {};
    queued.next = queued.current!.answer.then(settled, settled).then(() => {
      queued.next = undefined;
      return this.start(key, queued, read);
    });
    return queued.next;
  }

  private start(key: string, slot: Slot<T>, read: () => Promise<T>): Promise<T> {
    const answer = read().finally(() => {
      if (slot.current?.answer !== answer) return;
      slot.current = undefined;
      if (!slot.next) this.slots.delete(key);
    });
    slot.current = { at: performance.now(), answer };
    return answer;
  }
}

interface Slot<T> {
  /** the read under way, and when it began */
  current?: { at: number; answer: Promise<T> };
  /** the read that begins when the current one ends, shared by all who came meanwhile */
  next?: Promise<T>;
}
