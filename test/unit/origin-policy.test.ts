import { describe, expect, it } from 'vitest';
import { OriginPolicy, parsePattern, patternRegex, socketConditions } from '../../shared/origin-policy';
import { isClawdCookie, ownOrigins } from '../../shared/own-origins';
import { canonicalHost, hostOfUrl } from '../../shared/host-spelling';

const allowed = (policy: OriginPolicy, url: string) => policy.check(url).allowed;

describe('origin patterns', () => {
  it('match ports: none means the default, * any, a number that one', () => {
    const any = new OriginPolicy({ allow: ['http://localhost:*'] });
    expect(allowed(any, 'http://localhost:4000/x')).toBe(true);
    expect(allowed(any, 'http://localhost/')).toBe(true);
    expect(allowed(any, 'https://localhost:4000/')).toBe(false);
    const defaultPort = new OriginPolicy({ allow: ['https://example.com'] });
    expect(allowed(defaultPort, 'https://example.com/path?q=1')).toBe(true);
    expect(allowed(defaultPort, 'https://example.com:443/')).toBe(true);
    expect(allowed(defaultPort, 'https://example.com:8443/')).toBe(false);
    const one = new OriginPolicy({ allow: ['https://example.com:8443'] });
    expect(allowed(one, 'https://example.com:8443/')).toBe(true);
    expect(allowed(one, 'https://example.com/')).toBe(false);
  });

  it('match subdomains with *., any host with *, and http and https with *://', () => {
    const policy = new OriginPolicy({ allow: ['https://*.example.com', '*://intranet'] });
    expect(allowed(policy, 'https://example.com/')).toBe(true);
    expect(allowed(policy, 'https://a.b.example.com/')).toBe(true);
    expect(allowed(policy, 'https://badexample.com/')).toBe(false);
    expect(allowed(policy, 'https://example.com.evil.test/')).toBe(false);
    expect(allowed(policy, 'http://intranet/')).toBe(true);
    expect(allowed(policy, 'https://intranet/')).toBe(true);
    expect(allowed(new OriginPolicy({ block: ['https://*'] }), 'https://anything.test/')).toBe(false);
  });

  it('read hosts as the browser writes them: case, IDN as punycode, IPv6 in brackets', () => {
    const policy = new OriginPolicy({ allow: ['https://Bücher.DE', 'http://[::1]:*', 'http://127.0.0.1:*'] });
    expect(allowed(policy, 'https://xn--bcher-kva.de/')).toBe(true);
    expect(allowed(policy, 'https://bücher.de/')).toBe(true);
    expect(allowed(policy, 'http://[::1]:8080/')).toBe(true);
    expect(allowed(policy, 'http://[::2]:8080/')).toBe(false);
    expect(allowed(policy, 'http://127.0.0.1:9/')).toBe(true);
  });

  it('let block win over allow, and name the rule that decided', () => {
    const policy = new OriginPolicy({ allow: ['https://*.example.com'], block: ['https://bank.example.com'] });
    expect(policy.check('https://bank.example.com/login')).toEqual({
      allowed: false,
      rule: 'block https://bank.example.com',
      reason: 'https://bank.example.com is blocked by the rule block https://bank.example.com',
    });
    expect(policy.check('https://news.test/')).toEqual({
      allowed: false,
      rule: 'allow https://*.example.com',
      reason: 'https://news.test is not in the allowed origins (https://*.example.com)',
    });
    expect(policy.check('https://www.example.com/')).toEqual({ allowed: true });
  });

  it('judge file:, data:, blob:, about: and WebSocket URLs', () => {
    const policy = new OriginPolicy({ allow: ['https://app.test'] });
    expect(allowed(policy, 'about:blank')).toBe(true);
    expect(allowed(policy, 'about:srcdoc')).toBe(true);
    expect(allowed(policy, 'data:text/html,<p>hi</p>')).toBe(true);
    expect(allowed(policy, 'blob:https://app.test/5b1f')).toBe(true);
    expect(allowed(policy, 'blob:https://evil.test/5b1f')).toBe(false);
    expect(allowed(policy, 'wss://app.test/socket')).toBe(true);
    expect(allowed(policy, 'ws://app.test/socket')).toBe(false); // http://app.test is another origin
    expect(allowed(policy, 'file:///etc/passwd')).toBe(false);
    expect(allowed(new OriginPolicy({ allow: ['file://'] }), 'file:///tmp/a.html')).toBe(true);
    expect(allowed(new OriginPolicy({ block: ['https://evil.test'] }), 'file:///tmp/a.html')).toBe(true);
  });

  it('allow everything with no rule, and refuse a pattern that is not an origin, naming it', () => {
    const open = new OriginPolicy({});
    expect(open.empty).toBe(true);
    expect(allowed(open, 'https://anything.test/')).toBe(true);
    expect(parsePattern('https://example.com/path')).toMatch(/^"https:\/\/example.com\/path" is not an origin pattern/);
    expect(parsePattern('example.com')).toMatch(/not an origin pattern/);
    expect(parsePattern('https://example.com:99999')).toMatch(/port 99999 is out of range/);
    expect(() => new OriginPolicy({ allow: ['ftp://x'] }, 'browser.profiles.work.policy')).toThrow(
      /^browser\.profiles\.work\.policy\.allow: "ftp:\/\/x" is not an origin pattern/,
    );
  });
});

describe('cookies under the origin policy', () => {
  const visible = (policy: OriginPolicy, domain: string, secure = false) =>
    policy.cookieVerdict({ domain, secure }).allowed;

  it('hide a cookie whose host a block rule names, on any port and either scheme it travels over', () => {
    const policy = new OriginPolicy({ block: ['http://localhost:*', 'https://*.bank.test'] });
    expect(visible(policy, 'localhost')).toBe(false);
    expect(visible(policy, 'localhost', true)).toBe(true); // a Secure cookie never travels over http
    expect(visible(policy, '.bank.test', true)).toBe(false);
    expect(visible(policy, 'www.bank.test', true)).toBe(false);
    expect(visible(policy, '127.0.0.1')).toBe(true);
    expect(policy.cookieVerdict({ domain: '.bank.test', secure: true })).toMatchObject({
      rule: 'block https://*.bank.test',
    });
  });

  it('hide a domain cookie that also travels to a blocked host below its domain', () => {
    const policy = new OriginPolicy({ block: ['https://www.bank.test'] });
    expect(visible(policy, '.bank.test', true)).toBe(false); // sent to www.bank.test too
    expect(visible(policy, 'bank.test', true)).toBe(true); // a host-only cookie of bank.test is not
    expect(visible(policy, '.other.test', true)).toBe(true);
    expect(visible(new OriginPolicy({ block: ['https://*.bank.test'] }), '.app.bank.test', true)).toBe(false);
    // An allow list shows a domain cookie that travels to an allowed host below its domain.
    expect(visible(new OriginPolicy({ allow: ['https://www.shop.test'] }), '.shop.test', true)).toBe(true);
    expect(visible(new OriginPolicy({ allow: ['https://www.shop.test'] }), 'shop.test', true)).toBe(false);
  });

  it('show only the hosts an allow list names', () => {
    const policy = new OriginPolicy({ allow: ['http://127.0.0.1:*'] });
    expect(visible(policy, '127.0.0.1')).toBe(true);
    expect(visible(policy, '.example.com')).toBe(false);
    expect(visible(new OriginPolicy({}), '.example.com')).toBe(true);
  });
});

describe('origin patterns as the regular expressions Chrome enforces', () => {
  it('match the same URLs the policy does', () => {
    const urls = [
      'https://example.com/',
      'https://a.example.com/x',
      'https://example.com:8443/',
      'http://localhost:4000/',
      'http://localhost/',
      'wss://a.example.com/socket',
      'http://[::1]:8080/',
      'https://badexample.com/',
      'https://example.com.evil.test/',
    ];
    for (const text of [
      'https://*.example.com',
      'http://localhost:*',
      'https://example.com:8443',
      '*://example.com',
      'http://[::1]:*',
    ]) {
      const regex = new RegExp(patternRegex(text));
      const policy = new OriginPolicy({ allow: [text] });
      for (const url of urls) expect(regex.test(url), `${text} on ${url}`).toBe(policy.check(url).allowed);
    }
  });
});

describe("clawd's own addresses", () => {
  const own = ownOrigins([18791, 18792, 18791]);
  const policy = new OriginPolicy({ allow: ['http://127.0.0.1:*', 'http://localhost:*'], own });

  it('are refused before the person’s rules, in every spelling a browser sends to clawd', () => {
    expect(own).toEqual([
      'http://127.0.0.1:18791',
      'http://localhost:18791',
      'http://[::1]:18791',
      'http://127.0.0.1:18792',
      'http://localhost:18792',
      'http://[::1]:18792',
    ]);
    for (const url of [
      'http://127.0.0.1:18791/view',
      'http://LOCALHOST:18791/view/api/answer',
      'http://2130706433:18791/view', // the browser writes it 127.0.0.1
      'http://127.1:18792/json/version',
      'http://[::1]:18791/',
      'ws://127.0.0.1:18792/cdp',
      'blob:http://127.0.0.1:18791/0f6e',
    ])
      expect(policy.check(url), url).toEqual({
        allowed: false,
        rule: "clawd's own address",
        reason: expect.stringContaining("is clawd's own address: never a page for agents"),
      });
    // Another port of the same host is the person's rules' to judge (here: allowed).
    expect(policy.check('http://127.0.0.1:3000/').allowed).toBe(true);
    expect(new OriginPolicy({ own }).empty).toBe(false);
    expect(new OriginPolicy({ own }).ownOnly).toBe(true);
    expect(policy.ownOnly).toBe(false);
  });

  it('hide the live view’s session cookie from every client, whatever the rules, and only that cookie', () => {
    expect(policy.cookieVerdict({ name: 'clawd_view_18791', domain: '127.0.0.1' }).allowed).toBe(false);
    expect(policy.cookieVerdict({ name: 'clawd_view_18791', domain: 'localhost' }).allowed).toBe(false);
    expect(policy.cookieVerdict({ name: 'session', domain: '127.0.0.1' }).allowed).toBe(true);
    expect(isClawdCookie({ name: 'clawd_view_1', url: 'http://[::1]:1/view' })).toBe(true);
    expect(isClawdCookie({ name: 'clawd_view_1', domain: 'shop.example' })).toBe(false);
    // Without clawd's own list (a person's own policy read alone) the cookie is the policy's to judge.
    expect(new OriginPolicy({}).cookieVerdict({ name: 'clawd_view_18791', domain: '127.0.0.1' }).allowed).toBe(true);
  });

  it('become rules Chrome enforces, WebSockets included', () => {
    const regex = new RegExp(patternRegex('http://127.0.0.1:18791'));
    expect(regex.test('http://127.0.0.1:18791/view')).toBe(true);
    expect(regex.test('ws://127.0.0.1:18791/view/ws')).toBe(true);
    expect(regex.test('http://127.0.0.1:187910/')).toBe(false);
    expect(regex.test('http://127.0.0.1:18792/')).toBe(false);
  });
});

describe('one spelling of a host (shared/host-spelling.ts)', () => {
  // [rule, a URL as an agent may write it]: the rule must hold in the policy (what the relay, the
  // agent API and the managed guard ask) and in its regular expression (Chrome's rules on the
  // person's tabs, the page's WebSocket guard), over the URL as the browser writes it.
  const SAME_HOST: Array<[string, string]> = [
    ['https://bank.example', 'https://BANK.Example/'],
    ['https://bank.example', 'https://bank.example./login'],
    ['https://bank.example', 'https://bank.example../'],
    ['https://bank.example', 'https://x@bank.example/'],
    ['https://bank.example', 'https://x:y@bank.example./'],
    ['https://bank.example', 'https://b%61nk.example/'],
    ['https://bank.example', 'https://bank。example/'], // an ideographic full stop
    ['https://bank.example', 'wss://bank.example./socket'],
    ['https://bank.example', 'blob:https://bank.example./0f6e'],
    ['https://*.bank.example', 'https://www.bank.example./'],
    ['https://*.bank.example', 'https://u@a.b.bank.example/'],
    ['https://bücher.de', 'https://xn--bcher-kva.de./'],
    ['https://xn--bcher-kva.de', 'https://BÜCHER.de/'],
    ['http://10.1.2.3:*', 'http://167838211:8080/'], // decimal
    ['http://10.1.2.3:*', 'http://012.1.2.3:8080/'], // octal
    ['http://10.1.2.3:*', 'http://0xa.0x1.0x2.0x3:8080/'], // hex
    ['http://10.1.2.3:*', 'http://10.1.515/'], // short form
    ['http://10.1.2.3:*', 'http://10.1.2.3./'],
    ['http://10.1.2.3:*', 'http://[::ffff:10.1.2.3]/'],
    ['http://10.1.2.3:*', 'http://[::FFFF:a01:203]:9/'],
    ['http://127.0.0.1:*', 'http://0.0.0.0:9/'],
    ['http://127.0.0.1:*', 'http://0/'],
    ['http://127.0.0.1:*', 'http://[::ffff:7f00:1]:9/'],
    ['http://localhost:*', 'http://localhost.:9/'],
    ['http://localhost:*', 'http://a.b.localhost:9/'],
    ['http://localhost:*', 'http://LocalHost./'],
    ['http://[::1]:*', 'http://[0:0:0:0:0:0:0:1]:9/'],
    ['http://[::1]:*', 'http://[::]:9/'],
    ['http://[2001:db8::1]', 'http://[2001:DB8:0::1]/'],
  ];
  const OTHER_HOST: Array<[string, string]> = [
    ['https://bank.example', 'https://bank.example.evil.test/'],
    ['https://bank.example', 'https://xbank.example/'],
    ['https://bank.example', 'https://bank.example@evil.test/'],
    ['https://bank.example', 'https://evil.test/?u=https://bank.example/'],
    ['https://bank.example', 'https://evil.test/bank.example'],
    ['https://*.bank.example', 'https://notbank.example/'],
    ['http://10.1.2.3:*', 'http://10.1.2.30/'],
    ['http://10.1.2.3:*', 'http://[::ffff:a01:204]/'],
    ['http://127.0.0.1:*', 'http://127.0.0.2/'],
    ['http://localhost:*', 'http://localhost.evil.test/'],
    ['http://[::1]:*', 'http://[::2]/'],
  ];

  it.each(SAME_HOST)('%s holds on %s, in the policy and in the rule Chrome enforces', (rule, url) => {
    const verdict = new OriginPolicy({ block: [rule] }).check(url);
    expect(verdict, url).toMatchObject({ allowed: false, rule: `block ${rule}` });
    expect(new OriginPolicy({ allow: [rule] }).check(url).allowed, url).toBe(true);
    const written = url.startsWith('blob:') ? new URL(url).pathname : new URL(url).href;
    expect(new RegExp(patternRegex(rule)).test(written), written).toBe(true);
  });

  it.each(OTHER_HOST)('%s leaves %s alone, in the policy and in the rule Chrome enforces', (rule, url) => {
    expect(new OriginPolicy({ block: [rule] }).check(url).allowed, url).toBe(true);
    expect(new RegExp(patternRegex(rule)).test(new URL(url).href), url).toBe(false);
  });

  it('folds the same spellings into one host', () => {
    for (const [hostname, one] of [
      ['bank.example.', 'bank.example'],
      ['a.localhost', 'localhost'],
      ['localhost.', 'localhost'],
      ['0.0.0.0', '127.0.0.1'],
      ['[::]', '[::1]'],
      ['[::ffff:7f00:1]', '127.0.0.1'],
      ['[::ffff:127.0.0.1]', '127.0.0.1'],
      ['[2001:db8::1]', '[2001:db8::1]'],
    ])
      expect(canonicalHost(hostname!), hostname).toBe(one);
    expect(hostOfUrl('https://x@Bank.Example./a')).toBe('bank.example');
    expect(hostOfUrl('about:blank')).toBeUndefined();
    expect(hostOfUrl('not a url')).toBeUndefined();
  });

  it("keep clawd's own ports and the person's cookies in every spelling", () => {
    const own = new OriginPolicy({ own: ownOrigins([18791]) });
    for (const url of [
      'http://0.0.0.0:18791/view',
      'http://a.localhost:18791/',
      'http://[::]:18791/',
      'http://x@127.0.0.1.:18791/',
    ])
      expect(own.check(url), url).toMatchObject({ allowed: false, rule: "clawd's own address" });
    const blocked = new OriginPolicy({ block: ['https://bank.example'] });
    expect(blocked.cookieVerdict({ domain: 'bank.example.', secure: true }).allowed).toBe(false);
    expect(blocked.cookieVerdict({ domain: '.BANK.example', secure: true }).allowed).toBe(false);
    expect(isClawdCookie({ name: 'clawd_view_1', domain: 'a.localhost' })).toBe(true);
  });
});

describe('the policy as the browser’s own rules for WebSockets', () => {
  it('takes clawd’s own and the blocked origins offline first, then lets the allowed ones be, then the rest offline', () => {
    expect(
      socketConditions({
        own: ['http://127.0.0.1:18791'],
        block: ['https://*.bank.example'],
        allow: ['http://localhost:*', 'https://[::1]:8443'],
      }),
    ).toEqual([
      { urlPattern: 'ws://127.0.0.1{.}?:18791/*', offline: true },
      { urlPattern: 'ws://0.0.0.0:18791/*', offline: true },
      { urlPattern: 'ws://\\[\\:\\:ffff\\:7f00\\:1\\]:18791/*', offline: true },
      { urlPattern: 'wss://{*.}?bank.example{.}?/*', offline: true },
      { urlPattern: 'ws://{*.}?localhost{.}?:*/*', offline: false },
      { urlPattern: 'wss://\\[\\:\\:1\\]:8443/*', offline: false },
      { urlPattern: 'wss://\\[\\:\\:\\]:8443/*', offline: false },
      { urlPattern: 'ws{s}?://*:*/*', offline: true },
    ]);
    expect(socketConditions({ block: ['*://intranet'] })).toEqual([
      { urlPattern: 'ws{s}?://intranet{.}?/*', offline: true },
    ]);
    expect(socketConditions({})).toEqual([]);
  });
});
