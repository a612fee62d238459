/// <reference lib="dom" />
// Whether anything was taken out of a frame's document since a walk last looked for refs whose
// element is gone (part of the walker bundle). That look reads every ref's element (3–4 ms of a
// diff's walk on a 20k page); with nothing taken out, no element can have gone. An element that
// holds a ref in a shadow tree makes the watch blind (a document's observer does not see into
// one): then every walk looks, as before. The observer watches only until it has seen one
// removal, and again from the next look: a busy page pays for one record between two walks.

const WATCHED: MutationObserverInit = { childList: true, subtree: true };

export class RemovalWatch {
  /** Something may have been taken out since the last look (until the first, nothing is known). */
  private takenOut = true;
  /** An element in a shadow tree holds a ref: its removals are not seen (and nothing is watched). */
  private blind = false;
  private readonly observer = new MutationObserver((records) => this.read(records));

  /** An element that holds a ref (given one, or found still in the page by a look). */
  holds(el: Element): void {
    if (this.blind || el.getRootNode() === document) return;
    this.blind = true;
    this.observer.disconnect();
  }

  /** Whether the elements held may not all be in the document; from now on, watched afresh. */
  looked(): boolean {
    if (!this.takenOut) this.read(this.observer.takeRecords());
    const maybe = this.takenOut || this.blind;
    if (this.takenOut && !this.blind) this.observer.observe(document, WATCHED);
    this.takenOut = false;
    return maybe;
  }

  private read(records: MutationRecord[]): void {
    if (this.takenOut) return;
    for (const record of records)
      if (record.removedNodes.length > 0) {
        this.takenOut = true;
        this.observer.disconnect();
        return;
      }
  }
}
