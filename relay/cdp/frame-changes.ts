// What became of a tab's frames while it rested (its debugger was away: nothing of it was heard),
// told to clients as the Page events Chrome would have sent: frames gone, new ones, navigations.
// The frame tree before the rest is compared with the one after; a main frame with another
// document means the tab navigated meanwhile, which a replay tells as a navigation of its own.

import type { Protocol } from 'devtools-protocol';

/** One frame as the rest left it. */
export interface FrameMark {
  id: string;
  parentId?: string;
  loaderId: string;
  url: string;
}

/** The frames of a frame tree, parents before their children. */
export function frameMarks(tree: Protocol.Page.FrameTree): FrameMark[] {
  const marks: FrameMark[] = [];
  const visit = (node: Protocol.Page.FrameTree) => {
    const { id, parentId, loaderId, url } = node.frame;
    marks.push({ id, ...(parentId !== undefined ? { parentId } : {}), loaderId, url });
    for (const child of node.childFrames ?? []) visit(child);
  };
  visit(tree);
  return marks;
}

/** Whether the main frame still shows the document that rested. */
export function sameDocument(before: readonly FrameMark[], tree: Protocol.Page.FrameTree): boolean {
  const main = before[0];
  return main !== undefined && main.id === tree.frame.id && main.loaderId === tree.frame.loaderId;
}

export type FrameEvent =
  | { method: 'Page.frameDetached'; params: Protocol.Page.FrameDetachedEvent }
  | { method: 'Page.frameAttached'; params: Protocol.Page.FrameAttachedEvent }
  | { method: 'Page.frameNavigated'; params: Protocol.Page.FrameNavigatedEvent }
  | { method: 'Page.navigatedWithinDocument'; params: Protocol.Page.NavigatedWithinDocumentEvent };

/**
 * The events that bring a client that knew `before` to `tree` (the same main document): the
 * frames gone (outermost first: a detach takes its subtree along), then each new frame attached
 * and every new or changed one navigated (within its document when only its address moved),
 * parents first.
 */
export function frameChanges(before: readonly FrameMark[], tree: Protocol.Page.FrameTree): FrameEvent[] {
  const now = new Map<string, Protocol.Page.Frame>();
  const visit = (node: Protocol.Page.FrameTree) => {
    now.set(node.frame.id, node.frame);
    for (const child of node.childFrames ?? []) visit(child);
  };
  visit(tree);
  const known = new Map(before.map((mark) => [mark.id, mark]));
  const events: FrameEvent[] = [];
  const gone = new Set(before.filter((mark) => !now.has(mark.id)).map((mark) => mark.id));
  for (const id of gone) {
    const parent = known.get(id)?.parentId;
    if (parent === undefined || !gone.has(parent))
      events.push({ method: 'Page.frameDetached', params: { frameId: id, reason: 'remove' } });
  }
  for (const frame of now.values()) {
    const mark = known.get(frame.id);
    if (!mark && frame.parentId !== undefined)
      events.push({ method: 'Page.frameAttached', params: { frameId: frame.id, parentFrameId: frame.parentId } });
    if (!mark || mark.loaderId !== frame.loaderId)
      events.push({ method: 'Page.frameNavigated', params: { frame, type: 'Navigation' } });
    // The same document at another address: a history push or a fragment.
    else if (mark.url !== frame.url)
      events.push({
        method: 'Page.navigatedWithinDocument',
        params: { frameId: frame.id, url: frame.url, navigationType: 'other' },
      });
  }
  return events;
}
