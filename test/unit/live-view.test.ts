// The live view's pure parts: its messages parsed at the socket edge, canvas points mapped to
// the page, keys turned into CDP key events, one-time codes, and a screencast's per-viewer flow
// control (a scripted CDP session stands in for the tab).

import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { CDPSession } from 'playwright-core';
import { canvasToPage, decodeFrame, encodeFrame, parseViewMessage } from '../../shared/view-protocol';
import { silentLogger } from '../../relay/log';
import { qualityFor, TabScreencast, type ViewerSink } from '../../relay/view/tab-screencast';
import { PERSONS_VIEW, ViewAuth, WATCH_ONLY, grantShows } from '../../relay/view/view-auth';
import { inputCommand, keyCodeOf } from '../../relay/view/view-input';

describe('view messages', () => {
  it('parses what the page sends and names what is wrong', () => {
    expect(
      parseViewMessage('{"t":"mouse","type":"mousePressed","x":10,"y":20,"button":"left","buttons":1,"clickCount":1}'),
    ).toEqual({
      t: 'mouse',
      type: 'mousePressed',
      x: 10,
      y: 20,
      button: 'left',
      buttons: 1,
      clickCount: 1,
      modifiers: 0,
    });
    expect(parseViewMessage('{"t":"text","text":"日本"}')).toEqual({ t: 'text', text: '日本' });
    expect(() => parseViewMessage('nope')).toThrow('not JSON');
    expect(() => parseViewMessage('{"t":"shell"}')).toThrow('unknown message "shell"');
    expect(() => parseViewMessage('{"t":"mouse","type":"mousePressed","x":"1","y":2}')).toThrow('x must be a number');
    expect(() => parseViewMessage('{"t":"wheel","x":1e9,"y":2}')).toThrow('x must be a number');
    expect(() => parseViewMessage('{"t":"key","type":"keyPress","key":"a"}')).toThrow('key.type');
    expect(() => parseViewMessage('{"t":"nav","action":"go"}')).toThrow('url must be a string');
  });

  it('maps a canvas point to the page through the frame metadata, and frames round-trip', () => {
    const metadata = {
      deviceWidth: 1280,
      deviceHeight: 800,
      pageScaleFactor: 1,
      offsetTop: 0,
      scrollOffsetX: 0,
      scrollOffsetY: 500,
    };
    expect(canvasToPage({ x: 320, y: 100 }, { width: 640, height: 400 }, metadata)).toEqual({ x: 640, y: 200 });
    expect(canvasToPage({ x: 320, y: 100 }, { width: 640, height: 400 }, { ...metadata, pageScaleFactor: 2 })).toEqual({
      x: 320,
      y: 100,
    });
    const decoded = decodeFrame(encodeFrame(metadata, new Uint8Array([0xff, 0xd8, 1, 2])));
    expect(decoded.metadata).toEqual(metadata);
    expect([...decoded.jpeg]).toEqual([0xff, 0xd8, 1, 2]);
  });

  it('turns keys into key events Chrome acts on, text into insertText', () => {
    expect(keyCodeOf('Enter')).toBe(13);
    expect(keyCodeOf('a')).toBe(65);
    expect(
      inputCommand({ t: 'key', type: 'keyDown', key: 'Enter', code: 'Enter', modifiers: 0 })?.params,
    ).toMatchObject({ type: 'keyDown', text: '\r', windowsVirtualKeyCode: 13 });
    expect(inputCommand({ t: 'key', type: 'keyDown', key: 'a', code: 'KeyA', modifiers: 2 })?.params).toMatchObject({
      type: 'rawKeyDown',
      windowsVirtualKeyCode: 65,
      modifiers: 2,
    });
    expect(
      inputCommand({ t: 'key', type: 'keyDown', key: 'a', code: 'KeyA', modifiers: 2 })?.params,
    ).not.toHaveProperty('text');
    expect(inputCommand({ t: 'text', text: 'héllo' })).toEqual({
      method: 'Input.insertText',
      params: { text: 'héllo' },
    });
    expect(inputCommand({ t: 'take' })).toBeUndefined();
  });
});

describe('ViewAuth', () => {
  it('redeems a code once, within its minute, for a session the cookie carries', () => {
    let now = 0;
    const auth = new ViewAuth(() => now);
    const { code } = auth.code(PERSONS_VIEW);
    const session = auth.redeem(code)!;
    expect(session.session).not.toBe(code);
    expect(auth.redeem(code)).toBeUndefined();
    expect(auth.hasSession(`a=b; clawd_view_18791=${session.session}`, 18791)).toBe(true);
    expect(auth.hasSession('clawd_view_18791=other', 18791)).toBe(false);
    // Another server's port: its cookie is not this one's (and this one's is never sent there).
    expect(auth.hasSession(`clawd_view_18791=${session.session}`, 18795)).toBe(false);
    expect(auth.hasSession(`clawd_view=${session.session}`, 18791)).toBe(false);
    const late = auth.code(PERSONS_VIEW).code;
    now += 61_000;
    expect(auth.redeem(late)).toBeUndefined();
    now += 13 * 60 * 60_000;
    expect(auth.hasSession(`clawd_view_18791=${session.session}`, 18791)).toBe(false);
    // A hand-over's link lives as long as the hand-over, never past 10 minutes.
    const handover = auth.code(WATCH_ONLY, 5 * 60_000).code;
    expect(auth.code(WATCH_ONLY, 60 * 60_000).expiresInMs).toBe(10 * 60_000);
    now += 4 * 60_000;
    expect(auth.redeem(handover)).toBeDefined();
  });

  it("gives each session its link's grant: the person's acts and answers everywhere, a hand-over's watches one tab", () => {
    const auth = new ViewAuth();
    const cookie = (code: string) => `clawd_view_1=${auth.redeem(code)!.session}`;
    const persons = cookie(auth.code(PERSONS_VIEW).code);
    const tab = { profile: 'clawd', targetId: 'T1' };
    const handover = cookie(auth.code({ ...WATCH_ONLY, tab }).code);
    expect(auth.grantOf(persons, 1)).toEqual({ answers: true, acts: true });
    expect(auth.grantOf(handover, 1)).toEqual({ answers: false, acts: false, tab });
    expect(auth.mayAnswer(handover, 1)).toBe(false);
    expect(grantShows(auth.grantOf(handover, 1)!, 'clawd', 'T1')).toBe(true);
    expect(grantShows(auth.grantOf(handover, 1)!, 'clawd', 'T2')).toBe(false);
    expect(grantShows(auth.grantOf(handover, 1)!, 'chrome', 'T1')).toBe(false);
    expect(grantShows(auth.grantOf(persons, 1)!, 'chrome', 'T9')).toBe(true);
  });
});

describe('TabScreencast', () => {
  class FakeSession extends EventEmitter {
    sent: Array<{ method: string; params?: unknown }> = [];
    async send(method: string, params?: unknown) {
      this.sent.push({ method, params });
      return {};
    }
    async detach() {}
  }
  const frame = (session: FakeSession, n: number) =>
    session.emit('Page.screencastFrame', {
      data: Buffer.from([n]).toString('base64'),
      sessionId: n,
      metadata: {
        deviceWidth: 100,
        deviceHeight: 50,
        pageScaleFactor: 1,
        offsetTop: 0,
        scrollOffsetX: 0,
        scrollOffsetY: 0,
      },
    });
  /** A viewer; `takes` says whether its socket takes a frame (false: closing or far behind). */
  const sink = (takes = () => true) => {
    const got: number[] = [];
    const viewer: ViewerSink = {
      frame: (bytes) => {
        if (!takes()) return false;
        got.push(decodeFrame(bytes).jpeg[0]!);
        return true;
      },
      update: () => {},
    };
    return { got, viewer };
  };

  it('acks every frame, sends each viewer at most two unacked, keeps only the newest for it', async () => {
    const session = new FakeSession();
    const cast = new TabScreencast(session as unknown as CDPSession, silentLogger);
    const slow = sink();
    const fast = sink();
    cast.join(slow.viewer);
    cast.join(fast.viewer);
    await Promise.resolve();
    expect(session.sent[0]).toMatchObject({
      method: 'Page.startScreencast',
      params: { format: 'jpeg', maxWidth: 1280, maxHeight: 800, quality: qualityFor(1280) },
    });
    cast.resize(fast.viewer, { width: 780, height: 1600 }); // a phone: the screencast follows the largest viewer
    await Promise.resolve();
    expect(session.sent.filter((s) => s.method === 'Page.startScreencast').at(-1)).toMatchObject({
      params: { maxWidth: 780, maxHeight: 1600, quality: 80 },
    });
    session.sent = [];
    for (let n = 1; n <= 6; n++) {
      frame(session, n);
      cast.ack(fast.viewer);
    }
    expect(session.sent.filter((s) => s.method === 'Page.screencastFrameAck')).toHaveLength(6);
    expect(qualityFor(1920)).toBeLessThan(qualityFor(1280));
    expect(fast.got).toEqual([1, 2, 3, 4, 5, 6]);
    expect(slow.got).toEqual([1, 2]);
    expect(cast.held(slow.viewer)).toBe(1);
    cast.ack(slow.viewer);
    expect(slow.got).toEqual([1, 2, 6]); // the newest, not the backlog
    expect(cast.leave(slow.viewer)).toBe(false);
    expect(cast.leave(fast.viewer)).toBe(true);
    await cast.close();
    expect(session.sent.at(-1)?.method).toBe('Page.stopScreencast');
  });

  it('does not count a frame the socket did not take as in flight, so the viewer is never stuck waiting for acks', async () => {
    const session = new FakeSession();
    const cast = new TabScreencast(session as unknown as CDPSession, silentLogger);
    let taking = false;
    const viewer = sink(() => taking);
    cast.join(viewer.viewer);
    for (let n = 1; n <= 3; n++) frame(session, n); // refused: nothing in flight, the newest kept
    expect(viewer.got).toEqual([]);
    expect(cast.held(viewer.viewer)).toBe(1);
    taking = true;
    frame(session, 4);
    frame(session, 5);
    expect(viewer.got).toEqual([4, 5]);
  });

  it('starts the screencast again when no frame comes for 2 s while someone watches (a lost ack stalls it for good)', async () => {
    vi.useFakeTimers();
    try {
      const session = new FakeSession();
      const cast = new TabScreencast(session as unknown as CDPSession, silentLogger);
      const viewer = sink();
      cast.join(viewer.viewer);
      await vi.advanceTimersByTimeAsync(0);
      frame(session, 1);
      const starts = () => session.sent.filter((m) => m.method === 'Page.startScreencast').length;
      expect(starts()).toBe(1);
      await vi.advanceTimersByTimeAsync(1_900);
      frame(session, 2); // a frame puts it off
      await vi.advanceTimersByTimeAsync(1_900);
      expect(starts()).toBe(1);
      await vi.advanceTimersByTimeAsync(200);
      expect(session.sent.slice(-2).map((m) => m.method)).toEqual(['Page.stopScreencast', 'Page.startScreencast']);
      expect(session.sent.at(-1)).toMatchObject({ params: { maxWidth: 1280, maxHeight: 800 } });
      // Nobody watching: nothing is started again; closed: nothing at all.
      cast.leave(viewer.viewer);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(starts()).toBe(2);
      cast.join(viewer.viewer);
      await cast.close();
      await vi.advanceTimersByTimeAsync(5_000);
      expect(starts()).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says when a tab shows no picture (no first frame, or hidden), and live again when it does', async () => {
    vi.useFakeTimers();
    try {
      const session = new FakeSession();
      const cast = new TabScreencast(session as unknown as CDPSession, silentLogger);
      const states: string[] = [];
      cast.join({ frame: () => true, update: (u) => u.t === 'status' && states.push(u.state) });
      await vi.advanceTimersByTimeAsync(2_900);
      expect(states).toEqual(['waiting']);
      await vi.advanceTimersByTimeAsync(200);
      expect(states).toEqual(['waiting', 'hidden']);
      frame(session, 1);
      session.emit('Page.screencastVisibilityChanged', { visible: false });
      session.emit('Page.screencastVisibilityChanged', { visible: true });
      expect(states).toEqual(['waiting', 'hidden', 'live', 'hidden', 'live']);
      await cast.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
