// The relay's side of the person's say, against a scripted extension: input the page saw while
// an agent's input was on its way is the agent's, the rest is the person's; a raw client's input
// waits while the person's hands are on the tab; a raw client is asked before it reads cookies or
// goes to a new site when the person asked to be, and its input goes once its tab's requests are
// watched (what it sends, loads or downloads is judged there); the side panel's frames reach the hooks, and
// the consent state reaches the extension.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AskKind } from '../../shared/ask-kinds';
import type { PersonFrame } from '../../shared/protocol';
import { ClientGate } from '../../relay/cdp/client-gate';
import type { OpenWatch, WatchRequest } from '../../relay/cdp/raw-watches';
import { PersonActivity } from '../../relay/consent/person-activity';
import { PersonQuestions } from '../../relay/consent/person-questions';
import { UnallowedSites } from '../../relay/consent/unallowed-sites';
import { CdpClient } from '../helpers/cdp-client';
import { FakeExtension, fakeTab } from '../helpers/fake-extension';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import { quiet, until } from '../helpers/waits';

const TAB = fakeTab(7);

describe("the relay and the person's say", () => {
  let t: TestRelay;
  let ext: FakeExtension;
  let activity: PersonActivity;
  let questions: PersonQuestions;
  let unallowed: UnallowedSites;
  /** The tabs the person has (handed over to them), with why. */
  const persons = new Map<string, string>();
  let asked: AskKind[];
  /** The agent layer's watch on a tab's requests, scripted: what each open was asked for. */
  let watch: OpenWatch;
  const touched: string[] = [];
  const said: Array<PersonFrame['say']> = [];
  const panels: boolean[] = [];
  const clients: CdpClient[] = [];
  const pageClient = async (query = '', headers: Record<string, string> = {}) => {
    const c = await CdpClient.connect(`${t.cdpWsUrl}${query}`, { headers });
    clients.push(c);
    const { sessionId } = await c.send('Target.attachToTarget', { targetId: TAB.targetInfo.targetId, flatten: true });
    return { c, sessionId: sessionId as string };
  };

  beforeEach(async () => {
    touched.length = said.length = panels.length = 0;
    persons.clear();
    asked = [];
    watch = async () => ({ stop: async () => {} });
    activity = new PersonActivity(() => 400);
    questions = new PersonQuestions();
    unallowed = new UnallowedSites(questions);
    t = await startTestRelay({
      consent: {
        gate: new ClientGate({
          activity,
          questions,
          profile: () => 'chrome',
          asked: () => asked,
          watch: () => watch,
          unallowed: (profile, site) => unallowed.has(profile, site),
          personHas: (targetId) => persons.get(targetId),
          warn: () => {},
        }),
        personInput: (targetId) => {
          touched.push(targetId);
          activity.input(targetId);
        },
        panel: (open) => panels.push(open),
        said: (say) => said.push(say),
        handedTo: () => {},
      },
    });
    ext = await FakeExtension.connect(t.port, t.extensionKey, [TAB]);
    ext.handler = async (request) => {
      // An agent's key: the page sees it while the command is on its way, and says so first.
      if (request.op === 'cdp' && request.method === 'Input.dispatchKeyEvent')
        ext.send({
          type: 'personInput',
          tabId: TAB.tabId,
          inputs: [{ kind: 'key', key: String(request.params?.key) }],
        });
      return {};
    };
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    await ext.close();
    await t.close();
    activity.close();
    unallowed.close();
    questions.close();
  });

  it('asks about a load while the person types once the client ran code on the tab: a listener it left could make their key its load', async () => {
    asked = ['submit'];
    const opened: WatchRequest[] = [];
    watch = async (request) => {
      opened.push(request);
      return { stop: async () => {} };
    };
    const { c, sessionId } = await pageClient('&session=lurker');
    const click = { type: 'mousePressed', x: 5, y: 5, button: 'left', clickCount: 1 };
    await c.send('Input.dispatchMouseEvent', click, sessionId);
    await quiet(600); // past the moment the client's input may still show in the page
    ext.send({ type: 'personInput', tabId: TAB.tabId });
    await until('the person seen', () => activity.busyFor(TAB.targetInfo.targetId) > 0);
    // Only input so far: a form sent while the person's hands are on the tab is theirs.
    await opened[0]!.ask(['submit'], 'http://a.test/', 'POST http://a.test/');
    expect(questions.pending()).toEqual([]);
    // Once it ran a script there, the person is asked even while they type.
    await c.send('Runtime.evaluate', { expression: '1' }, sessionId).catch(() => {});
    const judging = opened[0]!.ask(['submit'], 'http://a.test/', 'POST http://a.test/').catch((e: Error) => e.message);
    const [question] = await until('the question', () => questions.pending()[0] && questions.pending());
    expect(question!.session).toBe('lurker');
    questions.answer(question!.id, false, 'side panel');
    expect(await judging).toMatch(/declined/);
    expect(opened).toHaveLength(1);
    await c.close();
  });

  it("takes input the page saw while an agent's key was on its way for the agent's, and the rest for the person's", async () => {
    const { c, sessionId } = await pageClient();
    await c.send('Input.dispatchKeyEvent', { type: 'keyDown', key: 'a' }, sessionId);
    await quiet(100);
    expect(touched).toEqual([]);
    // The person presses another key while the agent's is still near: theirs.
    ext.send({ type: 'personInput', tabId: TAB.tabId, inputs: [{ kind: 'key', key: 'q' }] });
    await until('the person seen beside the agent', () => touched.length === 1);
    await quiet(600); // past the moment an agent's input may still show in the page
    ext.send({ type: 'personInput', tabId: TAB.tabId });
    await until('the person seen', () => touched.length === 2);
    expect(touched).toEqual([TAB.targetInfo.targetId, TAB.targetInfo.targetId]);
  });

  it("holds a raw client's input while the person's hands are on the tab, and lets it go once they are idle", async () => {
    const { c, sessionId } = await pageClient();
    ext.send({ type: 'personInput', tabId: TAB.tabId });
    await until('the person seen', () => activity.busyFor(TAB.targetInfo.targetId) > 0);
    const sent = () => ext.requests.filter((r) => r.op === 'cdp' && r.method === 'Input.dispatchMouseEvent').length;
    const clicking = c.send(
      'Input.dispatchMouseEvent',
      { type: 'mousePressed', x: 1, y: 1, button: 'left', clickCount: 1 },
      sessionId,
    );
    await quiet(200);
    expect(sent()).toBe(0);
    await clicking;
    expect(sent()).toBe(1);
  });

  it('asks the person before a raw client reads the cookies or goes to a new site, when they asked to be', async () => {
    asked = ['raw-cookies', 'new-site'];
    const { c, sessionId } = await pageClient('&session=scraper');
    const reading = c.send('Network.getAllCookies', {}, sessionId).then(
      () => 'read',
      (error: Error) => error.message,
    );
    const [question] = await until('the question', () => questions.pending()[0] && questions.pending());
    expect(question).toMatchObject({
      profile: 'chrome',
      session: 'scraper',
      kinds: ['raw-cookies'],
      what: 'Network.getAllCookies',
      targetId: TAB.targetInfo.targetId,
    });
    questions.answer(question!.id, false, 'side panel');
    expect(await reading).toMatch(/the person declined a raw CDP client reading your browser's cookies/);
    expect(ext.requests.some((r) => r.op === 'cdp' && r.method === 'Network.getAllCookies')).toBe(false);

    // Saying it is clawd's own agent layer takes the key the relay minted, not a constant.
    const posing = await pageClient('', { 'X-Clawd-Agent': '1' });
    const posed = posing.c.send('Network.getCookies', {}, posing.sessionId).catch((error: Error) => error.message);
    const [third] = await until('the poser asked about too', () => questions.pending()[0] && questions.pending());
    expect(third!.kinds).toEqual(['raw-cookies']);
    questions.answer(third!.id, false, 'side panel');
    expect(await posed).toMatch(/declined/);

    // The tab's own site is known; another is asked about once allowed, then known.
    await c.send('Page.navigate', { url: 'https://example.test/other' }, sessionId);
    const going = c.send('Page.navigate', { url: 'https://elsewhere.test/' }, sessionId);
    const [second] = await until('the second question', () => questions.pending()[0] && questions.pending());
    expect(second).toMatchObject({ kinds: ['new-site'], url: 'https://elsewhere.test/' });
    questions.answer(second!.id, true, 'side panel');
    await going;
    await c.send('Page.navigate', { url: 'https://elsewhere.test/again' }, sessionId);
    expect(questions.pending()).toEqual([]);
  });

  it('opens a raw client’s new tab blank and loads it once watched, even asked for on a page’s session; refuses what reaches past the rules', async () => {
    asked = ['submit'];
    const opened: WatchRequest[] = [];
    watch = async (request) => {
      opened.push(request);
      return { stop: async () => {} };
    };
    const NEW = fakeTab(9);
    ext.handler = (request) => (request.op === 'createTab' ? { tab: fakeTab(9, { url: request.url }) } : {});
    const { c, sessionId } = await pageClient('&session=opener');
    // On a page's session, sent to chrome.debugger, it would open a tab nobody attaches or watches.
    const { targetId } = await c.send('Target.createTarget', { url: 'https://new.test/' }, sessionId);
    expect(targetId).toBe(NEW.targetInfo.targetId);
    expect(ext.requests.find((r) => r.op === 'createTab')).toMatchObject({ url: 'about:blank', active: false });
    expect(opened.map((r) => r.targetId)).toEqual([NEW.targetInfo.targetId]);
    await until('the new tab loaded', () =>
      ext.requests.find((r) => r.op === 'cdp' && r.method === 'Page.navigate' && r.tabId === NEW.tabId),
    );
    expect(ext.requests.find((r) => r.op === 'cdp' && r.method === 'Page.navigate')).toMatchObject({
      params: { url: 'https://new.test/' },
    });
    expect(ext.requests.some((r) => r.op === 'cdp' && r.method === 'Target.createTarget')).toBe(false);
    // The client's own interception, browser-wide too, and the page's own channel to the protocol.
    await expect(c.send('Fetch.enable', {})).rejects.toThrow(/request interception is refused/);
    // Nor may it let go of a request: on the person's tab one continue lets a held request go,
    // whichever client sent it (its id shown, or guessed).
    await expect(c.send('Fetch.continueRequest', { requestId: 'interception-job-1.0' }, sessionId)).rejects.toThrow(
      /request interception is refused/,
    );
    // A file of this machine, the browser's own pages: no page for a client, whatever the policy.
    await expect(c.send('Page.navigate', { url: 'file:///etc/passwd' }, sessionId)).rejects.toThrow(
      /not pages for CDP clients/,
    );
    await expect(c.send('Target.createTarget', { url: 'view-source:file:///etc/passwd' })).rejects.toThrow(
      /not pages for CDP clients/,
    );
    for (const method of ['WebAuthn.enable', 'PWA.launchFilesInApp', 'Extensions.loadUnpacked'])
      await expect(c.send(method, {}, sessionId)).rejects.toThrow(/not available to CDP clients/);
    await expect(
      c.send('Network.loadNetworkResource', { url: 'https://else.test/', options: {} }, sessionId),
    ).rejects.toThrow(/not available to CDP clients/);
    await expect(c.send('Target.exposeDevToolsProtocol', { targetId }, sessionId)).rejects.toThrow(
      /not available to CDP clients/,
    );
  });

  it('refuses a raw client’s changes to a tab the person has, from its session or the browser’s; its reads go', async () => {
    const { c, sessionId } = await pageClient('&session=meddler');
    persons.set(TAB.targetInfo.targetId, 'log in');
    for (const [method, params] of [
      ['Page.handleJavaScriptDialog', { accept: true }],
      ['Page.close', {}],
      ['DOM.setOuterHTML', { nodeId: 1, outerHTML: '<p>' }],
      ['Input.insertText', { text: 'x' }],
    ] as const)
      await expect(c.send(method, params, sessionId)).rejects.toThrow(/the person has this tab \("log in"\)/);
    await expect(c.send('Target.closeTarget', { targetId: TAB.targetInfo.targetId })).rejects.toThrow(
      /the person has this tab/,
    );
    await c.send('DOM.getDocument', {}, sessionId);
    expect(ext.requests.some((r) => r.op === 'closeTab')).toBe(false);
  });

  it('asks before a raw client hands the page files, by a file input or by a drag’s drop', async () => {
    asked = ['upload'];
    const { c, sessionId } = await pageClient('&session=dropper');
    const drop = {
      type: 'drop',
      x: 5,
      y: 5,
      data: { items: [], files: ['/home/person/.ssh/id_ed25519'], dragOperationsMask: 1 },
    };
    const dropping = c.send('Input.dispatchDragEvent', drop, sessionId).then(
      () => 'dropped',
      (error: Error) => error.message,
    );
    const [question] = await until('the question', () => questions.pending()[0] && questions.pending());
    expect(question).toMatchObject({ kinds: ['upload'], session: 'dropper', what: 'Input.dispatchDragEvent' });
    questions.answer(question!.id, false, 'side panel');
    expect(await dropping).toMatch(/declined/);
    expect(ext.requests.some((r) => r.op === 'cdp' && r.method === 'Input.dispatchDragEvent')).toBe(false);
    // A drag that carries no file is input like any other.
    await c.send('Input.dispatchDragEvent', { ...drop, data: { items: [], dragOperationsMask: 1 } }, sessionId);
    expect(questions.pending()).toEqual([]);
  });

  it.each([true, false])(
    'counts a tab left on a site the person was asked about, whoever asked, as no visit until they allow it there (refused: %s)',
    async (refuse) => {
      asked = ['new-site'];
      // An agent's call (or another connection of the same agent) was refused going to the site
      // the tab now shows its error page under — or gave up waiting while the question stays open.
      const question = {
        profile: 'chrome',
        kinds: ['new-site' as const],
        session: 'agent',
        what: 'navigate',
        url: TAB.targetInfo.url,
        targetId: TAB.targetInfo.targetId,
      };
      const first = questions.ask(question, refuse ? 5_000 : 50).catch((error: Error) => error.message);
      const [open] = await until('the question', () => questions.pending()[0] && questions.pending());
      if (refuse) questions.answer(open!.id, false, 'side panel');
      expect(await first).toMatch(refuse ? /declined/ : /waiting|answer/);
      // A client working in that tab is asked before it loads the site.
      const { c, sessionId } = await pageClient('&session=second');
      const going = c.send('Page.navigate', { url: `${TAB.targetInfo.url}/again` }, sessionId).then(
        () => 'went',
        (error: Error) => error.message,
      );
      const second = await until('the client asked', () => questions.pending().find((q) => q.session === 'second'));
      expect(second).toMatchObject({ kinds: ['new-site'] });
      questions.answer(second.id, true, 'side panel');
      expect(await going).toBe('went');
      // Allowed there, the tab's site is one it has been on.
      await c.send('Page.navigate', { url: TAB.targetInfo.url }, sessionId);
      expect(questions.pending().filter((q) => q.session === 'second')).toEqual([]);
    },
  );

  it('holds a raw client’s commands until its tab’s requests are watched, for its stay, and refuses its own interception then', async () => {
    asked = ['submit', 'new-site'];
    const opened: WatchRequest[] = [];
    let stopped = 0;
    let ready!: () => void;
    watch = async (request) => {
      opened.push(request);
      await new Promise<void>((resolve) => (ready = resolve));
      return { stop: async () => void stopped++ };
    };
    const { c, sessionId } = await pageClient('&session=clicker');
    const sent = () => ext.requests.filter((r) => r.op === 'cdp' && r.method === 'Input.dispatchMouseEvent').length;
    const click = { type: 'mousePressed', x: 5, y: 5, button: 'left', clickCount: 1 };
    const pressing = c.send('Input.dispatchMouseEvent', click, sessionId);
    // Not sent until the watch holds the tab …
    await until('the watch asked for', () => opened.length === 1);
    await quiet(100);
    expect(sent()).toBe(0);
    ready();
    await pressing;
    // … and then kept: one watch for the client's whole stay, judging what was asked.
    await c.send('Input.dispatchMouseEvent', { ...click, type: 'mouseReleased' }, sessionId);
    await c.send('DOM.setAttributeValue', { nodeId: 1, name: 'onerror', value: 'x' }, sessionId).catch(() => {});
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ targetId: TAB.targetInfo.targetId });
    expect([...opened[0]!.kinds].sort()).toEqual(['new-site', 'submit']);
    expect(sent()).toBe(2);
    // Its own Fetch would be shown the requests the watch holds: refused, and never sent on.
    const intercepting = await c.send('Fetch.enable', {}, sessionId).catch((error: Error) => error.message);
    expect(intercepting).toMatch(/request interception is refused/);
    expect(ext.requests.some((r) => r.op === 'cdp' && r.method === 'Fetch.enable')).toBe(false);
    // A page of no site, opened with what it runs in its address, is a new site: asked first.
    const opening = c
      .send('Target.createTarget', { url: 'data:text/html,<form method=post></form>' })
      .catch((error: Error) => error.message);
    const [dataPage] = await until('the question', () => questions.pending()[0] && questions.pending());
    expect(dataPage!.kinds).toEqual(['new-site']);
    questions.answer(dataPage!.id, false, 'side panel');
    expect(await opening).toMatch(/declined/);
    await c.close();
    await until('the watch to end with the client', () => stopped === 1, 5_000);

    // What only reads goes unwatched; a tab that cannot be watched is not acted on unasked: the
    // person is asked about all of it.
    watch = () => Promise.reject(new Error('no session'));
    const other = await pageClient('&session=typist');
    await other.c.send('DOM.getDocument', {}, other.sessionId);
    expect(questions.pending()).toEqual([]);
    const typing = other.c
      .send('Input.insertText', { text: 'x' }, other.sessionId)
      .catch((error: Error) => error.message);
    const [question] = await until('the question', () => questions.pending()[0] && questions.pending());
    expect(question!.what).toMatch(/clawd cannot watch this tab's requests \(no session\)/);
    questions.answer(question!.id, false, 'side panel');
    expect(await typing).toMatch(/declined/);
    expect(ext.requests.some((r) => r.op === 'cdp' && r.method === 'Input.insertText')).toBe(false);
  });

  it("asks before a raw client has a download's file: denied, it hears the download canceled and gets nothing", async () => {
    asked = ['download'];
    const { c } = await pageClient('&session=fetcher');
    await c.send('Browser.setDownloadBehavior', {
      behavior: 'allowAndName',
      downloadPath: '/tmp/clawd-never-written',
      eventsEnabled: true,
    });
    ext.event(TAB.tabId, 'Page.downloadWillBegin', {
      frameId: 'F',
      guid: 'g1',
      url: 'https://example.test/report.pdf',
      suggestedFilename: 'report.pdf',
    });
    const [question] = await until('the question', () => questions.pending()[0] && questions.pending());
    expect(question).toMatchObject({
      kinds: ['download'],
      session: 'fetcher',
      what: 'download https://example.test/report.pdf',
    });
    questions.answer(question!.id, false, 'side panel');
    ext.event(TAB.tabId, 'Page.downloadProgress', {
      guid: 'g1',
      totalBytes: 10,
      receivedBytes: 10,
      state: 'completed',
    });
    const progress = await c.waitForEvent('Browser.downloadProgress', (m) => m.params.guid === 'g1');
    expect(progress.params.state).toBe('canceled');
    expect(ext.requests.some((r) => r.op === 'downloadedFile')).toBe(false);
  });

  it('hands the side panel’s frames to the hooks, and sends the consent state to the extension', async () => {
    ext.send({ type: 'panel', open: true });
    ext.send({ type: 'person', say: { answer: 'q1', allow: true } });
    ext.send({ type: 'person', say: { stop: true } });
    await until('the frames heard', () => said.length === 2 && panels.length === 1);
    expect(said).toEqual([{ answer: 'q1', allow: true }, { stop: true }]);
    const state = { profile: 'chrome', tabs: [], actions: [], policy: {}, ask: ['storage' as const], questions: [] };
    const arrived = ext.next((f) => f.type === 'consent');
    t.relay.switchboard.sendConsent(state);
    expect(await arrived).toEqual({ type: 'consent', state });
    // A frame that is not one closes the link with a reason, as any other bad frame does.
    ext.send({ type: 'person', say: { ask: ['everything'] } } as never);
    expect((await ext.closed).code).toBe(1007);
  });
});
