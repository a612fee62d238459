// Cookies in network events follow the origin policy (relay/cdp/cookie-rules.ts cookieEventShown):
// a cookie that would travel to a blocked host is left out of the cookie lists and the Cookie and
// Set-Cookie headers a raw client is shown, and with `none` (the person asks before raw clients
// read cookies) every cookie and credential is. Events with nothing to hide pass as they are.

import { describe, expect, it } from 'vitest';
import { OriginPolicy } from '../../shared/origin-policy';
import { cookieEventShown, type CookieJudge } from '../../relay/cdp/cookie-rules';

const policy = new OriginPolicy({ block: ['https://bank.shop.test'] });
const judge = (none = false): CookieJudge => ({
  visible: (cookie) => policy.cookieVerdict(cookie).allowed,
  hidesSome: !policy.ownOnly,
  none,
});
const cookie = (name: string, value: string, domain: string) => ({ name, value, domain, secure: true });

describe('cookies in network events', () => {
  const sent = {
    requestId: '1',
    associatedCookies: [
      { blockedReasons: [], cookie: cookie('wide', 'w1', '.shop.test') }, // travels to bank.shop.test too
      { blockedReasons: [], cookie: cookie('own', 'o1', 'www.shop.test') },
    ],
    headers: { Cookie: 'wide=w1; own=o1', Authorization: 'Bearer abc', accept: '*/*' },
    headersText: 'GET / HTTP/1.1\r\nCookie: wide=w1; own=o1\r\n',
  };

  it('leave a cookie that travels to a blocked host out of the list and the Cookie header', () => {
    const shown = cookieEventShown('Network.requestWillBeSentExtraInfo', sent, judge());
    expect(shown.associatedCookies).toEqual([sent.associatedCookies[1]]);
    expect(shown.headers).toEqual({ Cookie: 'own=o1', Authorization: 'Bearer abc', accept: '*/*' });
    expect(shown.headersText).toBeUndefined();
    expect(sent.headers.Cookie).toBe('wide=w1; own=o1'); // the event itself is not changed
  });

  it('leave out Set-Cookie lines for a domain that reaches a blocked host, and their listed cookies', () => {
    const answered = {
      requestId: '1',
      headers: { 'set-cookie': 'wide=w2; Domain=.shop.test; Secure\nhostonly=h2; Path=/\nother=x; Domain=other.test' },
      blockedCookies: [{ blockedReasons: ['SameSiteLax'], cookieLine: 'wide=w3; Domain=shop.test; Secure' }],
      exemptedCookies: [{ exemptionReason: 'None', cookieLine: 'a=b', cookie: cookie('a', 'b', '.bank.shop.test') }],
      headersText: 'HTTP/1.1 200 OK\r\nset-cookie: wide=w2; Domain=.shop.test\r\n',
    };
    const shown = cookieEventShown('Network.responseReceivedExtraInfo', answered, judge());
    expect(shown.headers).toEqual({ 'set-cookie': 'hostonly=h2; Path=/\nother=x; Domain=other.test' });
    expect(shown.blockedCookies).toEqual([]);
    expect(shown.exemptedCookies).toEqual([]);
    expect(shown.headersText).toBeUndefined();
  });

  it('hide every cookie and credential from a client the person asks about', () => {
    const shown = cookieEventShown('Network.requestWillBeSentExtraInfo', sent, judge(true));
    expect(shown.associatedCookies).toEqual([]);
    expect(shown.headers).toEqual({ accept: '*/*' });
    const response = cookieEventShown(
      'Network.responseReceived',
      { response: { headers: { 'Set-Cookie': 'a=b' }, requestHeaders: { cookie: 'a=b' }, status: 200 } },
      judge(true),
    );
    expect(response.response).toEqual({ headers: {}, requestHeaders: {}, status: 200 });
    const socket = cookieEventShown(
      'Network.webSocketWillSendHandshakeRequest',
      { request: { headers: { Cookie: 'a=b', Host: 'x' } } },
      judge(),
    );
    // No list of what was sent: the header goes while the person has any rule.
    expect(socket.request).toEqual({ headers: { Host: 'x' } });
  });

  it('pass events with nothing to hide as they are', () => {
    const plain = { requestId: '2', request: { url: 'https://www.shop.test/', headers: { accept: '*/*' } } };
    expect(cookieEventShown('Network.requestWillBeSent', plain, judge())).toBe(plain);
    const open = new OriginPolicy({});
    expect(
      cookieEventShown('Network.requestWillBeSentExtraInfo', sent, {
        visible: (c) => open.cookieVerdict(c).allowed,
        hidesSome: false,
        none: false,
      }),
    ).toBe(sent);
  });
});
