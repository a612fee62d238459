import { describe, expect, it } from 'vitest';
import {
  defaultBrowserConfig,
  isLoopbackUrl,
  nextColor,
  parseBrowserConfig,
  profileNameProblem,
} from '../../relay/home/config-schema';
import { DriverKinds } from '../../relay/profiles/driver-kinds';
import { BUILT_IN_KINDS } from '../../relay/profiles/kinds';
import { checkOpenUrl, matchTab } from '../../relay/profiles/tabs';

describe('profile names', () => {
  it.each(['clawd', 'work', 'my-project-1', '0day', 'a'.repeat(64)])('accepts %s', (name) =>
    expect(profileNameProblem(name)).toBeUndefined(),
  );
  it.each(['../x', 'A', '-x', 'a'.repeat(65), '', 'with space', 'ünï', 'a/b'])(
    'refuses %j, naming the rule',
    (name) => {
      expect(profileNameProblem(name)).toMatch(
        /use lowercase letters, digits and hyphens, starting with a letter or digit, at most 64 characters/,
      );
    },
  );
});

describe('the browser section of config.json', () => {
  const valid = () => JSON.parse(JSON.stringify(defaultBrowserConfig(18792, 18800)));

  it('fills defaults and keeps what is valid', () => {
    expect(parseBrowserConfig({ profiles: valid().profiles }, 'c.json')).toEqual(defaultBrowserConfig(18792, 18800));
  });

  it.each([
    [(c: any) => (c.enabled = 'yes'), 'browser.enabled must be true or false, got "yes"'],
    [
      (c: any) => (c.profiles.clawd.cdpPort = 'abc'),
      'browser.profiles.clawd.cdpPort must be an integer from 1 to 65535, got "abc"',
    ],
    [(c: any) => (c.profiles.clawd.cdpPort = 9222), 'browser.profiles.clawd.cdpPort must not be 9222'],
    [
      (c: any) => (c.profiles.clawd.color = 'orange'),
      'browser.profiles.clawd.color must be a colour like "#FF4500", got "orange"',
    ],
    [
      (c: any) => (c.profiles.chrome.cdpUrl = 'ftp://x'),
      'browser.profiles.chrome.cdpUrl must be an http(s) or ws(s) URL, got "ftp://x"',
    ],
    [
      (c: any) => (c.defaultProfile = 'nope'),
      'browser.defaultProfile must name one of the profiles (clawd, chrome), got "nope"',
    ],
    [
      (c: any) => (c.profiles.work = { driver: 'managed', cdpPort: c.profiles.clawd.cdpPort, color: '#000000' }),
      "browser.profiles.work.cdpPort must differ from profile clawd's",
    ],
    [(c: any) => (c.extraArgs = '--x'), 'browser.extraArgs must be a list of strings, got "--x"'],
    [(c: any) => (c.cdpPortRange = { from: 2, to: 1 }), 'browser.cdpPortRange must have from ≤ to'],
    [(c: any) => (c.profiles.Bad = c.profiles.clawd), 'invalid profile name "Bad"'],
  ])('names the key and the value of a bad setting (%#)', (mutate, message) => {
    const config = valid();
    mutate(config);
    expect(() => parseBrowserConfig(config, 'c.json', new DriverKinds(BUILT_IN_KINDS))).toThrow(message);
  });

  it('gives new profiles the first unused palette colour', () => {
    expect(nextColor(defaultBrowserConfig())).toBe('#0066CC');
  });

  it('tells loopback CDP URLs from remote ones', () => {
    expect(isLoopbackUrl('http://127.0.0.1:9000')).toBe(true);
    expect(isLoopbackUrl('http://localhost:9000')).toBe(true);
    expect(isLoopbackUrl('ws://[::1]:9000')).toBe(true);
    expect(isLoopbackUrl('http://10.0.0.42:9222')).toBe(false);
    expect(isLoopbackUrl('http://127.0.0.1.evil.example:1')).toBe(false);
  });
});

describe('tabs by id or prefix', () => {
  const tabs = [
    { targetId: 'ABCDEF01', title: 'a', url: 'https://a.test/', type: 'page' },
    { targetId: 'ABCDEF02', title: 'b', url: 'https://b.test/', type: 'page' },
    { targetId: '99999999', title: 'c', url: 'https://c.test/', type: 'page' },
  ];
  it('finds a tab by its id or a unique prefix, any case', () => {
    expect(matchTab(tabs, 'ABCDEF02').title).toBe('b');
    expect(matchTab(tabs, '999').title).toBe('c');
    expect(matchTab(tabs, 'abcdef01').title).toBe('a');
  });
  it('refuses an ambiguous prefix (409) and an unknown id (404)', () => {
    expect(() => matchTab(tabs, 'ABC')).toThrow(
      expect.objectContaining({ code: 'target_ambiguous', message: expect.stringContaining('matches 2 tabs') }),
    );
    expect(() => matchTab(tabs, 'zz')).toThrow(expect.objectContaining({ code: 'target_not_found' }));
    expect(() => matchTab(tabs, '')).toThrow(expect.objectContaining({ code: 'target_not_found' }));
  });
});

describe('URLs a tab may open', () => {
  it('takes the web and about:blank', () => {
    expect(checkOpenUrl('https://example.com')).toBe('https://example.com/');
    expect(checkOpenUrl('about:blank')).toBe('about:blank');
  });
  it.each([
    ['javascript:alert(1)', /url: javascript: URLs are refused/],
    ['file:///etc/passwd', /url: file: URLs are refused/],
    ['example.com', /not an absolute URL/],
    [undefined, /url is required/],
  ])('refuses %j', (url, message) => {
    expect(() => checkOpenUrl(url)).toThrow(message);
  });
});
