// A diff's walk takes the parts of the last walk nothing changed since (walk-reuse.ts): on real
// Chromium, the walker bundle as the relay puts it in a page, each way a page changes is made and
// the walk that reuses must say exactly what a whole walk says right after it — and must reuse
// where marks are enough (a field typed in, words changed in a long list), and walk whole where
// they are not (a style sheet changed, a state a style rule reads moved, the window resized).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type JSHandle, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestBrowser } from '../helpers/chromium';
import { giveBack, leaseBrowser } from '../helpers/worker-browsers';

const WALKER = readFileSync(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/in-page/walker.js'),
  'utf8',
);

const LIST = `<ul>${Array.from({ length: 200 }, (_, i) => `<li><div><span><button>item ${i}</button></span> <em>note ${i}</em></div></li>`).join('')}</ul>`;

interface Walked {
  text: string;
  reused: boolean;
}

let kept: TestBrowser;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  kept = await leaseBrowser({ extension: false });
  browser = await chromium.connectOverCDP(`http://${new URL(kept.wsEndpoint).host}`);
  page = await browser.contexts()[0]!.newPage();
});

afterAll(async () => {
  await page?.close();
  await browser?.close();
  if (kept) await giveBack(kept, { extension: false });
});

/** The page with `html` (and `setup` run in it), its walker put in, and walks of it that keep their refs' numbers going. */
async function open(html: string, setup?: () => void) {
  await page.setViewportSize({ width: 1000, height: 700 });
  await page.setContent(`<!doctype html><html><head><title>reuse</title></head><body>${html}</body></html>`);
  if (setup) await page.evaluate(setup);
  const walker: JSHandle = await page.evaluateHandle(
    `(() => { ${WALKER}; return { registry: __clawdWalker.createRegistry(), run: __clawdWalker.inPage, reused: __clawdWalker.walkReused, next: 1 }; })()`,
  );
  const walk = (reuse: boolean): Promise<Walked> =>
    walker.evaluate((w: any, reuse: boolean) => {
      const text = w.run(w.registry, { kind: 'walk', nextRef: w.next, textMax: 2000, ...(reuse ? { reuse } : {}) });
      w.next = Number(text.split('\t')[1]);
      return { text, reused: w.reused(w.registry) };
    }, reuse);
  const first = await walk(false);
  /** After `change`: the walk that reuses, checked against a whole walk right after it. */
  const after = async (change: () => Promise<unknown>): Promise<Walked> => {
    await change();
    const reusing = await walk(true);
    const whole = await walk(false);
    // Their lines, not their headers (each walk has an id of its own).
    const lines = (walked: Walked) => walked.text.slice(walked.text.indexOf('\n'));
    expect(lines(reusing)).toBe(lines(whole));
    return reusing;
  };
  return { first, after, walk };
}

/** The snapshot's line for text, decoded from the walk's answer. */
const lineOf = (walked: Walked, text: string) =>
  walked.text.split('\n').find((row) => row.startsWith('L\t') && row.includes(text));

describe('a diff walk reuses what did not change, and says what a whole walk says', () => {
  it('a field typed in: reused, the value said', async () => {
    const { after } = await open(`<main><h1>Orders</h1><label>Note <input id="n"></label>${LIST}</main>`);
    const walked = await after(() => page.fill('#n', 'hello'));
    expect(walked.reused).toBe(true);
    expect(lineOf(walked, 'textbox "Note"')).toContain('"hello"');
  });

  it('a value a script set with no event, and a box it checked: read from the controls', async () => {
    const { after } = await open(
      `<main><label>Note <input id="n"></label><label><input type="checkbox" id="c"> Gift</label>${LIST}</main>`,
    );
    const walked = await after(() =>
      page.evaluate(() => {
        (document.getElementById('n') as HTMLInputElement).value = 'scripted';
        (document.getElementById('c') as HTMLInputElement).checked = true;
      }),
    );
    expect(walked.reused).toBe(true);
    expect(lineOf(walked, 'textbox "Note"')).toContain('"scripted"');
    expect(lineOf(walked, 'checkbox "Gift"')).toContain('[checked]');
  });

  it('a form the browser refused reads its field [invalid]; options a script chose are said', async () => {
    const { after } = await open(
      `<main><form><label>Email <input required name="e"></label><button>Send</button></form><label>Sizes <select multiple id="s"><option>S</option><option>M</option><option>L</option></select></label>${LIST}</main>`,
    );
    const walked = await after(() =>
      page.evaluate(() => {
        document.querySelector('form')!.requestSubmit();
        (document.getElementById('s') as HTMLSelectElement).options[2]!.selected = true;
      }),
    );
    expect(walked.reused).toBe(true);
    expect(lineOf(walked, 'textbox "Email"')).toContain('[invalid=');
    expect(lineOf(walked, '"Sizes"')).toContain('L');
  });

  it('words changed deep in a long list, an item taken out, one added: reused around them', async () => {
    const { after } = await open(`<main>${LIST}</main>`);
    const walked = await after(() =>
      page.evaluate(() => {
        const items = document.querySelectorAll('li');
        items[120]!.querySelector('em')!.textContent = 'changed words';
        items[150]!.remove();
        items[10]!.after(Object.assign(document.createElement('li'), { innerHTML: '<button>new one</button>' }));
      }),
    );
    expect(walked.reused).toBe(true);
    expect(walked.text).toContain('changed words');
    expect(walked.text).toContain('new one');
    expect(walked.text).not.toContain('item 150');
  });

  it('a class that hides, a style attribute, an element added hidden', async () => {
    const { after } = await open(`<style>.gone { display: none }</style><main>${LIST}</main>`);
    const walked = await after(() =>
      page.evaluate(() => {
        const items = document.querySelectorAll('li');
        items[3]!.classList.add('gone');
        (items[4] as HTMLElement).style.visibility = 'hidden';
        document.body.append(
          Object.assign(document.createElement('p'), { className: 'gone', textContent: 'never seen' }),
        );
      }),
    );
    expect(walked.reused).toBe(true);
    expect(walked.text).not.toContain('item 3"');
    expect(walked.text).not.toContain('item 4"');
  });

  it('a rule a script inserted, and a style sheet added: walked whole', async () => {
    const { after } = await open(`<style>p { color: black }</style><main>${LIST}</main>`);
    let walked = await after(() =>
      page.evaluate(() => document.styleSheets[0]!.insertRule('li:nth-child(7) { display: none }')),
    );
    expect(walked.reused).toBe(false);
    expect(walked.text).not.toContain('item 6"');
    walked = await after(() =>
      page.evaluate(() =>
        document.head.append(Object.assign(document.createElement('style'), { textContent: 'em { display: none }' })),
      ),
    );
    expect(walked.reused).toBe(false);
    expect(walked.text).not.toContain('note 5');
  });

  it('a label elsewhere and an aria-labelledby target renamed: the controls they name are read again', async () => {
    const { after } = await open(
      `<main><section><input id="a"><input aria-labelledby="t"></section>${LIST}<p><label for="a">Old label</label> <span id="t">Old title</span></p></main>`,
    );
    const walked = await after(() =>
      page.evaluate(() => {
        document.querySelector('label')!.textContent = 'New label';
        document.getElementById('t')!.textContent = 'New title';
      }),
    );
    expect(walked.text).toContain('textbox "New label"');
    expect(walked.text).toContain('textbox "New title"');
  });

  it('a menu a style rule opens on focus: walked whole once the focus moved', async () => {
    const { after } = await open(
      `<style>.menu .sub { display: none } .menu:focus-within .sub { display: block }</style><main><div class="menu"><button id="m">Menu</button><div class="sub"><a href="#x">Inside the menu</a></div></div>${LIST}</main>`,
    );
    const walked = await after(() => page.focus('#m'));
    expect(walked.reused).toBe(false);
    expect(walked.text).toContain('Inside the menu');
  });

  it('a popover shown, a details opened, a dialog shown', async () => {
    const { after } = await open(
      `<main><div popover id="p"><button>In the popover</button></div><details><summary>More</summary><p>Details words</p></details><dialog id="d"><button>In the dialog</button></dialog>${LIST}</main>`,
    );
    const walked = await after(() =>
      page.evaluate(() => {
        // The dialog first: showing one closes the popovers open.
        (document.getElementById('d') as HTMLDialogElement).show();
        document.querySelector('details')!.open = true;
        (document.getElementById('p') as HTMLElement).showPopover();
      }),
    );
    expect(walked.text).toContain('In the popover');
    expect(walked.text).toContain('Details words');
    expect(walked.text).toContain('In the dialog');
  });

  it('a box drawn over words as their last sibling hides them', async () => {
    const { after } = await open(
      `<main><div style="position: relative; width: 300px"><p>Covered words here</p></div>${LIST}</main>`,
    );
    const walked = await after(() =>
      page.evaluate(() => {
        const cover = document.createElement('div');
        cover.style.cssText = 'position:absolute;inset:0;background:#fff';
        document.querySelector('main > div')!.append(cover);
      }),
    );
    expect(walked.text).not.toContain('Covered words here');
  });

  it("words in a shadow root, and a rebuilt list's refs", async () => {
    const { after, walk } = await open(
      `<main><x-card></x-card><ol id="o">${[1, 2, 3].map((n) => `<li><button>Buy ${n}</button></li>`).join('')}</ol>${LIST}</main>`,
    );
    await page.evaluate(() => {
      const host = document.querySelector('x-card')!;
      host.attachShadow({ mode: 'open' }).innerHTML = '<p>Shadow words</p><button>Shadow button</button>';
    });
    const buys = (walked: Walked) =>
      walked.text
        .split('\n')
        .filter((row) => row.startsWith('L\t') && row.split('\t')[5]!.startsWith('Buy '))
        .map((row) => row.split('\t')[3]);
    const before = buys(await walk(false));
    const walked = await after(() =>
      page.evaluate(() => {
        document.querySelector('x-card')!.shadowRoot!.querySelector('p')!.textContent = 'New shadow words';
        const list = document.getElementById('o')!;
        // Rebuilt, the same to a person: the refs go to the rebuilt buttons.
        const again = list.innerHTML;
        list.innerHTML = again;
      }),
    );
    expect(walked.reused).toBe(true);
    expect(walked.text).toContain('New shadow words');
    expect([before.length, buys(walked)]).toEqual([3, before]);
  });

  it("words of a slotted child, and a slot's nodes changed: the slot and what holds it are walked again", async () => {
    const { after } = await open(`<main><x-slots><p>first words</p><p>second words</p></x-slots>${LIST}</main>`, () => {
      const host = document.querySelector('x-slots')!;
      host.attachShadow({ mode: 'open' }).innerHTML = '<div><slot></slot></div><div><slot name="b"></slot></div>';
    });
    let walked = await after(() =>
      page.evaluate(() => {
        document.querySelector('x-slots p')!.textContent = 'new first words';
      }),
    );
    expect(walked.text).toContain('new first words');
    walked = await after(() =>
      page.evaluate(() => {
        document.querySelectorAll('x-slots p')[1]!.setAttribute('slot', 'b');
        document
          .querySelector('x-slots')!
          .prepend(Object.assign(document.createElement('p'), { textContent: 'zero words' }));
      }),
    );
    expect(walked.text).toContain('zero words');
  });

  it('an element taken out, changed, and put back; one moved to another parent', async () => {
    const { after } = await open(
      `<main><section id="a"><div id="panel"><p>Panel words</p><label>Field <input></label></div></section><section id="b" style="visibility:hidden"></section>${LIST}</main>`,
    );
    const walked = await after(() =>
      page.evaluate(() => {
        const panel = document.getElementById('panel')!;
        panel.remove();
        panel.querySelector('p')!.textContent = 'Changed while out';
        panel.querySelector('input')!.value = 'typed while out';
        document.getElementById('a')!.append(panel);
        document.getElementById('b')!.append(document.querySelector('li')!);
      }),
    );
    expect(walked.text).toContain('Changed while out');
    expect(walked.text).toContain('typed while out');
    expect(walked.text).not.toContain('item 0"');
  });

  it('a :has() rule a change elsewhere turns on, a hidden child after a cover, spaces between words', async () => {
    const { after } = await open(
      `<style>.hint { display: none } .card:has(.err) .hint { display: block }</style><main><div class="card"><p class="hint">Hint words</p><div id="slot"></div></div><div style="position:relative;width:300px"><p>Covered words here</p><div style="position:absolute;inset:0;background:#fff"></div></div><p id="w"><b>Hello</b><b>World</b></p>${LIST}</main>`,
    );
    const walked = await after(() =>
      page.evaluate(() => {
        document.getElementById('slot')!.append(Object.assign(document.createElement('span'), { className: 'err' }));
        const box = document.querySelector('main > div[style]')!;
        box.append(Object.assign(document.createElement('span'), { hidden: true }));
        const w = document.getElementById('w')!;
        w.insertBefore(document.createTextNode(' '), w.lastChild);
      }),
    );
    expect(walked.reused).toBe(false);
    expect(walked.text).toContain('Hint words');
  });

  it('a label taken out, a popover shown inside a component, an element defined late', async () => {
    const { after } = await open(
      `<style>x-late:not(:defined) { display: none }</style><main><input id="a"><p><label for="a">Old label</label></p><x-pop></x-pop><x-late><p>Late words</p></x-late>${LIST}</main>`,
      () => {
        document.querySelector('x-pop')!.attachShadow({ mode: 'open' }).innerHTML =
          '<div popover id="p"><button>In a component popover</button></div>';
      },
    );
    const walked = await after(() =>
      page.evaluate(() => {
        document.querySelector('label')!.remove();
        (document.querySelector('x-pop')!.shadowRoot!.getElementById('p') as HTMLElement).showPopover();
        customElements.define('x-late', class extends HTMLElement {});
      }),
    );
    expect(walked.text).not.toContain('Old label');
    expect(walked.text).toContain('In a component popover');
    expect(walked.text).toContain('Late words');
  });

  it('what a walk that reused saw added is watched after it as after a whole walk: a reader of an id, an element defined late', async () => {
    const { walk, after } = await open(`<main><p><span id="t">Old title</span></p>${LIST}</main>`);
    await page.evaluate(() => {
      const section = document.createElement('section');
      section.innerHTML = '<input aria-labelledby="t"><div><x-later></x-later></div>';
      document.querySelector('main')!.prepend(section);
    });
    const added = await walk(true);
    expect([added.reused, lineOf(added, 'Old title')]).toEqual([true, expect.stringContaining('textbox')]);
    // Neither change touches the reader or the element: only what the walk after the addition found marks them.
    const walked = await after(() =>
      page.evaluate(() => {
        document.getElementById('t')!.textContent = 'New title';
        customElements.define(
          'x-later',
          class extends HTMLElement {
            constructor() {
              super();
              this.attachShadow({ mode: 'open' }).innerHTML = '<button>Defined later</button>';
            }
          },
        );
      }),
    );
    expect(walked.reused).toBe(true);
    expect(lineOf(walked, 'New title')).toContain('textbox');
    expect(walked.text).toContain('Defined later');
  });

  it('walks whole again after 25 diffs in a row, whatever marks say', async () => {
    const { walk } = await open(`<main>${LIST}</main>`);
    const reused: boolean[] = [];
    for (let i = 0; i < 26; i++) reused.push((await walk(true)).reused);
    expect(reused.slice(0, 25).every(Boolean)).toBe(true);
    expect(reused[25]).toBe(false);
  });

  it('the window resized: walked whole', async () => {
    const { after } = await open(`<main>${LIST}</main>`);
    const walked = await after(() => page.setViewportSize({ width: 700, height: 500 }));
    expect(walked.reused).toBe(false);
  });

  it('nothing changed: the same words and refs, all reused', async () => {
    const { first, after } = await open(`<main><h1>Orders</h1>${LIST}</main>`);
    const walked = await after(async () => {});
    expect(walked.reused).toBe(true);
    expect(walked.text.split('\n').slice(1)).toEqual(first.text.split('\n').slice(1));
  });
});
