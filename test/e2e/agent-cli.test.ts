import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pages';
import { startTestServer, type TestServer } from '../helpers/server';
import { useTempDirs } from '../helpers/temp-dirs';
import { unfenced } from '../helpers/fence';

describe('driving a tab from the clawd CLI', () => {
  let t: TestServer;
  let pages: PageServer;
  const temp = useTempDirs('clawd-cli-');
  beforeAll(async () => {
    [t, pages] = await Promise.all([startTestServer(), startPageServer()]);
    expect((await t.cli(['start'])).code).toBe(0);
  });
  afterAll(async () => {
    await t?.close();
    await pages?.close();
  });

  const ok = async (args: string[]) => {
    const result = await t.cli(args);
    expect(result.code, `clawd ${args.join(' ')}\n${result.stderr}`).toBe(0);
    return unfenced(result.stdout);
  };
  /** The page's own answer, through the CLI's evaluate (allowed on a managed profile). */
  const inPage = async (expression: string) => JSON.parse(await ok(['evaluate', '--fn', `() => ${expression}`]));
  /** The number of the ref a snapshot line gives, `- button "Send" [ref=e7]` (role) or `button "Send" [e7]` (agent) → "7". */
  const refNumber = (snapshot: string, line: RegExp) => {
    const found = snapshot
      .split('\n')
      .find((l) => line.test(l))
      ?.match(/\[(?:ref=)?e(\d+)\]/)?.[1];
    if (!found) throw new Error(`no line like ${line} in:\n${snapshot}`);
    return found;
  };

  it('navigates, snapshots, types, fills, selects and clicks by ref', async () => {
    expect(await ok(['navigate', pages.url('/agent-form')])).toBe('loaded: agent form\n');
    const snap = await ok(['snapshot', '--format', 'role', '--interactive']);
    expect(snap).toMatch(/^- textbox "Name" \[ref=e1\]$/m);
    await ok(['type', refNumber(snap, /textbox "Name"/), 'Ada', 'Lovelace']);
    await ok([
      'fill',
      '--fields',
      JSON.stringify([
        { ref: `e${refNumber(snap, /textbox "Email"/)}`, value: 'ada@example.test' },
        { ref: `@e${refNumber(snap, /checkbox "Agree"/)}`, value: true },
      ]),
    ]);
    expect(await ok(['select', refNumber(snap, /combobox "Color"/), 'green'])).toBe('selected green\n');
    await ok(['click', refNumber(snap, /radio "Small"/)]);
    await ok(['click', refNumber(snap, /button "Send"/)]);
    expect(await inPage('document.getElementById("result").textContent')).toBe(
      'submitted name=Ada+Lovelace&email=ada%40example.test&agree=yes&size=small&color=green',
    );
    const unknown = await t.cli(['click', '999']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^clawd: unknown ref e999/);
    // The default format, and its refs work the same way.
    const agent = await ok(['snapshot']);
    expect(agent).toMatch(/^textbox "Name" \[e\d+\]: "Ada Lovelace"$/m);
    await ok(['type', refNumber(agent, /textbox "Name"/), '!']);
    expect(await inPage('document.getElementById("name").value')).toBe('!');
  });

  it('presses, hovers, waits, resizes, drags, scrolls, focuses', async () => {
    await ok(['navigate', pages.url('/agent-form')]);
    const snap = await ok(['snapshot', '--format', 'role']);
    await ok(['click', refNumber(snap, /button "Later"/)]);
    // The text comes 300 ms after the click: while the wait watches (its answer then says it, as
    // a diff says text that came) or before, on a loaded machine (then no answer says it).
    expect(await ok(['wait', '--text', 'arrived later'])).toMatch(/^done\n(\+ "arrived later"\n)?$/);
    await ok(['press', 'Tab']);
    await ok(['resize', '640', '480']);
    expect(await inPage('innerWidth')).toBe(640);
    await ok(['navigate', pages.url('/drag')]);
    const drag = await ok(['snapshot', '--format', 'role']);
    await ok(['drag', refNumber(drag, /button "Source"/), refNumber(drag, /region "Target"/)]);
    expect(await inPage('document.getElementById("target").textContent')).toBe('dropped');
    await ok(['navigate', pages.url('/scrolling')]);
    const scrolling = await ok(['snapshot', '--format', 'role']);
    expect(await ok(['scroll', 'down', '--amount', '300'])).toBe('at 0,300\n');
    await ok(['focus-ref', refNumber(scrolling, /textbox "Field"/)]);
    expect(await inPage('document.activeElement.id')).toBe('field');
  });

  it('uploads and answers a dialog through hooks', async () => {
    await ok(['navigate', pages.url('/agent-form')]);
    const file = temp.file('clawd-cli-upload.txt', 'abc');
    const snap = await ok(['snapshot', '--format', 'role']);
    expect(await ok(['upload', file, '--ref', refNumber(snap, /button "Attachment"/)])).toBe(
      `uploaded ${file} via e${refNumber(snap, /button "Attachment"/)}\n`,
    );
    expect(await inPage('document.getElementById("got").textContent')).toBe(`${path.basename(file)}:3`);
    await ok(['navigate', pages.url('/dialogs')]);
    const dialogs = await ok(['snapshot', '--format', 'role']);
    expect(
      await ok(['dialog', '--accept', '--prompt-text', 'Grace', '--ref', refNumber(dialogs, /button "Prompt"/)]),
    ).toBe('accepted prompt, which said:\nname?\n'); // the page's words (fenced; `ok` reads them unfenced)
    expect(await inPage('document.getElementById("answer").textContent')).toBe('prompt Grace');
    expect(await ok(['dialog', '--dismiss'])).toBe('armed: the next dialog is dismissed\n');
    await ok(['click', refNumber(dialogs, /button "Confirm"/)]);
    expect(await inPage('document.getElementById("answer").textContent')).toBe('confirm false');
  });

  it('takes a screenshot and a PDF, and shows the console', async () => {
    await ok(['navigate', pages.url('/console')]);
    const snap = await ok(['snapshot', '--format', 'role']);
    await ok(['click', refNumber(snap, /button "log"/)]);
    expect(await ok(['console'])).toContain('[log] hello from the page 42');
    const shot = (await ok(['screenshot', '--full-page'])).trim();
    const file = shot.match(/^saved (\S+) \(\d+×\d+\)$/)![1]!;
    expect(readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
    const pdf = (await ok(['pdf'])).trim().replace(/^saved /, '');
    expect(readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-');
    const json = JSON.parse(await ok(['snapshot', '--json', '--format', 'role']));
    expect(json).toMatchObject({ format: 'role', title: 'console', truncated: false });
  });
});
