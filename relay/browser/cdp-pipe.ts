// CDP over the pipe Chromium opens with `--remote-debugging-pipe`: it reads commands on fd 3 and
// writes answers and events on fd 4, each message JSON followed by a NUL byte. No TCP port is
// opened at all (measured on Chromium 150 and 156: nothing listens, no DevToolsActivePort file),
// so only the process that started the browser can drive it — clawd, which serves the profile's
// CDP port itself (cdp-endpoint.ts). When fd 3 reaches its end (clawd closed it, or died)
// Chromium shuts down cleanly by itself within a second.

import type { Readable, Writable } from 'node:stream';

export class CdpPipe {
  readonly #listeners = new Set<(text: string) => void>();
  readonly #closers = new Set<() => void>();
  #partial: Buffer[] = [];
  #closed = false;

  constructor(
    private readonly toBrowser: Writable,
    fromBrowser: Readable,
  ) {
    fromBrowser.on('data', (chunk: Buffer) => this.#read(chunk));
    fromBrowser.once('close', () => this.#finish());
    fromBrowser.once('end', () => this.#finish());
    fromBrowser.on('error', () => this.#finish());
    toBrowser.on('error', () => this.#finish());
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(text: string): void {
    if (this.#closed) return;
    // One write, one system call: every CDP message of a managed profile crosses here.
    this.toBrowser.write(`${text}\0`);
  }

  /** `listener` hears every message from the browser; the returned function stops it. */
  onMessage(listener: (text: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** `listener` hears once that the pipe closed (the browser went away, or close()). */
  onClose(listener: () => void): () => void {
    if (this.#closed) {
      listener();
      return () => {};
    }
    this.#closers.add(listener);
    return () => this.#closers.delete(listener);
  }

  /** Ends the pipe: the browser shuts down once it reads the end. */
  close(): void {
    if (this.#closed) return;
    this.toBrowser.end();
    this.#finish();
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0, start); end !== -1; end = chunk.indexOf(0, start)) {
      // A message whole in this chunk is read where it lies; one begun in an earlier chunk is
      // joined first (a character may be split between chunks).
      let text: string;
      if (this.#partial.length === 0) text = chunk.toString('utf8', start, end);
      else {
        this.#partial.push(chunk.subarray(start, end));
        text = Buffer.concat(this.#partial).toString('utf8');
        this.#partial = [];
      }
      start = end + 1;
      for (const listener of this.#listeners) listener(text);
    }
    if (start < chunk.length) this.#partial.push(chunk.subarray(start));
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    const closers = [...this.#closers];
    this.#closers.clear();
    this.#listeners.clear();
    for (const closer of closers) closer();
  }
}
