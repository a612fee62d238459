// What a client is told of a tab's frames after a rest (relay/cdp/frame-changes.ts): nothing when
// nothing moved; a frame gone, a new one, one navigated, one that moved within its document; and
// whether the main frame still shows the document that rested.

import type { Protocol } from 'devtools-protocol';
import { describe, expect, it } from 'vitest';
import { frameChanges, frameMarks, sameDocument } from '../../relay/cdp/frame-changes';

const frame = (id: string, loaderId: string, url: string, parentId?: string): Protocol.Page.Frame => ({
  id,
  loaderId,
  url,
  ...(parentId !== undefined ? { parentId } : {}),
  domainAndRegistry: '',
  securityOrigin: new URL(url).origin,
  mimeType: 'text/html',
  secureContextType: 'Secure',
  crossOriginIsolatedContextType: 'NotIsolated',
  gatedAPIFeatures: [],
});

const tree = (main: Protocol.Page.Frame, ...children: Protocol.Page.FrameTree[]): Protocol.Page.FrameTree => ({
  frame: main,
  ...(children.length > 0 ? { childFrames: children } : {}),
});

describe('the frames after a rest', () => {
  const main = frame('M', 'L1', 'https://a.test/');
  const ad = tree(frame('A', 'LA', 'https://a.test/ad', 'M'), tree(frame('A1', 'LA1', 'https://a.test/in-ad', 'A')));
  const before = frameMarks(tree(main, ad, tree(frame('B', 'LB', 'https://a.test/b', 'M'))));

  it('lists the frames parents first', () => {
    expect(before.map((m) => m.id)).toEqual(['M', 'A', 'A1', 'B']);
  });

  it('tells nothing when nothing moved', () => {
    const same = tree(main, ad, tree(frame('B', 'LB', 'https://a.test/b', 'M')));
    expect(sameDocument(before, same)).toBe(true);
    expect(frameChanges(before, same)).toEqual([]);
  });

  it('tells a frame gone (not its children again), a new one, a navigation and a move within a document', () => {
    const now = tree(
      frame('M', 'L1', 'https://a.test/#top'),
      tree(frame('B', 'LB2', 'https://a.test/b2', 'M')),
      tree(frame('C', 'LC', 'https://a.test/c', 'M')),
    );
    expect(sameDocument(before, now)).toBe(true);
    expect(
      frameChanges(before, now).map((e) => [e.method, 'frameId' in e.params ? e.params.frameId : e.params.frame.id]),
    ).toEqual([
      ['Page.frameDetached', 'A'],
      ['Page.navigatedWithinDocument', 'M'],
      ['Page.frameNavigated', 'B'],
      ['Page.frameAttached', 'C'],
      ['Page.frameNavigated', 'C'],
    ]);
  });

  it('says another main document is not the one that rested', () => {
    expect(sameDocument(before, tree(frame('M', 'L2', 'https://a.test/other')))).toBe(false);
    expect(sameDocument([], tree(main))).toBe(false);
  });
});
