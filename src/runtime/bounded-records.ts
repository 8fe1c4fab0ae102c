/**
 * The collections a stream parser keeps across a call's events, each bounded (`MAX_TRACKED`,
 * `RECORD_TEXT_CHARS` in `jsonl-reader.ts`), so a CLI printing millions of events costs the parser
 * constant memory: what it keeps are small records, never the events.
 */
import { MAX_TRACKED, RECORD_TEXT_CHARS } from "./jsonl-reader.js";

/** A set that stops growing at `limit` entries: later new values are not added (`has` is then false). */
export class BoundedSet<T> {
  private readonly values = new Set<T>();

  constructor(private readonly limit: number = MAX_TRACKED) {}

  add(value: T): void {
    if (this.values.size < this.limit || this.values.has(value)) this.values.add(value);
  }

  has(value: T): boolean {
    return this.values.has(value);
  }

  get size(): number {
    return this.values.size;
  }

  [Symbol.iterator](): Iterator<T> {
    return this.values[Symbol.iterator]();
  }
}

/** A map in first-seen order that stops taking new keys at `limit` (an existing key is still updated). */
export class BoundedMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly limit: number = MAX_TRACKED) {}

  /** Sets `key` unless it is new and the map is full; true when it was set. */
  set(key: K, value: V): boolean {
    if (this.entries.size >= this.limit && !this.entries.has(key)) return false;
    this.entries.set(key, value);
    return true;
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  get size(): number {
    return this.entries.size;
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries[Symbol.iterator]();
  }
}

/** The most recent `limit` items, in order (older ones are dropped; amortised O(1) per push). */
export class RecentList<T> {
  private items: T[] = [];

  constructor(private readonly limit: number = MAX_TRACKED) {}

  push(item: T): void {
    this.items.push(item);
    if (this.items.length >= 2 * this.limit) this.items = this.items.slice(-this.limit);
  }

  toArray(): T[] {
    return this.items.slice(-this.limit);
  }

  /** The most recent item, or `undefined` when there is none. */
  last(): T | undefined {
    return this.items.at(-1);
  }
}

/** `text` cut to `chars` characters (the last one `…`) when longer. */
export function recordText(text: string, chars: number = RECORD_TEXT_CHARS): string {
  return text.length > chars ? `${text.slice(0, chars - 1)}…` : text;
}
