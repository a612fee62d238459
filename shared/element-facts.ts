// What a page says of one element, read in the page itself: its test id, label and placeholder
// where each is the only one in its document, and a CSS path. One function for both readers of
// it: the relay's (an agent's action, through Playwright's evaluate, so it is self-contained) and
// the extension's recorder (the person's own action, in the page's isolated world).

export interface ElementFacts {
  testId?: string;
  label?: string;
  placeholder?: string;
  css: string;
  password: boolean;
  /** In a frame, not the page's own document. */
  framed: boolean;
}

/**
 * Runs in the page: the element's test id, label and placeholder where each is the only one in
 * its document, and a CSS path (an id that is unique, else tag and position from the nearest
 * such ancestor).
 */
export function readElementFacts(node: Node): ElementFacts {
  const el = node as Element & { labels?: NodeListOf<HTMLLabelElement> | null; placeholder?: string; type?: string };
  const doc = el.ownerDocument;
  const text = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
  const only = (selector: string) => doc.querySelectorAll(selector).length === 1;
  const attr = (name: string, value: string) => `[${name}="${CSS.escape(value)}"]`;
  const testIdName = ['data-testid', 'data-test-id', 'data-test'].find((name) => el.hasAttribute(name));
  const rawTestId = testIdName ? el.getAttribute(testIdName)! : '';
  // One line of words: a test id with a line break in it is no locator worth keeping.
  const testId =
    rawTestId && !/[\r\n\u2028\u2029]/.test(rawTestId) && only(attr(testIdName!, rawTestId)) ? rawTestId : '';
  const label = text(el.labels?.[0]?.textContent);
  const sameLabel = label
    ? [...doc.querySelectorAll('label')].filter((l) => text(l.textContent) === label).length === 1
    : false;
  const placeholder = text(el.placeholder ?? el.getAttribute('placeholder'));
  const pathTo = (e: Element): string => {
    if (e.id && only(`#${CSS.escape(e.id)}`)) return `#${CSS.escape(e.id)}`;
    const parent = e.parentElement;
    const tag = e.tagName.toLowerCase();
    if (!parent) return tag;
    const same = [...parent.children].filter((c) => c.tagName === e.tagName);
    const step = same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(e) + 1})` : tag;
    return `${pathTo(parent)} > ${step}`;
  };
  return {
    ...(testId ? { testId } : {}),
    ...(label && sameLabel ? { label } : {}),
    ...(placeholder && only(attr('placeholder', placeholder)) ? { placeholder } : {}),
    css: pathTo(el),
    password: el.tagName === 'INPUT' && String(el.type).toLowerCase() === 'password',
    framed: doc.defaultView !== doc.defaultView?.top,
  };
}
