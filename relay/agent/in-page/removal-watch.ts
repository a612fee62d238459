/// <reference lib="dom" />
// Whether anything was taken out of a frame's document since a walk last looked for refs whose
// element is gone (part of the walker bundle). That look reads every ref's element (3–4 ms of a
// diff's walk on a 20k page); with nothing taken out, no element can have gone. An element that
// holds a ref in a shadow tree makes the watch blind (a document's observer does not see into
// one): then every walk looks, as before.

export class RemovalWatch {
  /** Something may have been taken out since the last look (until the first, nothing is known). */
  private takenOut = true;
  /** An element in a shadow tree holds a ref: its removals are not seen. */
  private blind = false;
  private readonly observer = new MutationObserver((records) => this.read(records));

  constructor(root: Document) {
    this.observer.observe(root, { childList: true, subtree: true });
  }

  /** An element that now holds a ref. */
  holds(el: Element): void {
    if (!this.blind && el.getRootNode() !== document) this.blind = true;
  }

  /** Whether the elements held may not all be in the document; from now on, watched afresh. */
  looked(): boolean {
    this.read(this.observer.takeRecords());
    const maybe = this.takenOut || this.blind;
    this.takenOut = false;
    return maybe;
  }

  private read(records: MutationRecord[]): void {
    if (this.takenOut) return;
    for (const record of records)
      if (record.removedNodes.length > 0) {
        this.takenOut = true;
        return;
      }
  }
}
