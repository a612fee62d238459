// The questions waiting for the person, as their own browser notifies them (chrome.notifications
// with Allow and Deny): every profile's, since the person may be anywhere but in the side panel.
// A session's name and a code's name are the agent's words: quoted, never the title's start.
// The page's words in a question (an element's name) are marked for the side panel's quote; a
// notification is plain text, so the marks go and the words stay, cut short.

import type { AskNotice } from '../../shared/consent-state';
import { PAGE_MARKS } from '../../shared/page-marks';
import { kindsText, type Question } from './person-questions';
import { originOf } from './person-approvals';

/** The site a question is on, said first (the names in a question are the agent's words). */
const siteOf = (url: string | undefined) => originOf(url) ?? 'A site';

/** A notification's message is a few lines on screen: longer is cut. */
const MESSAGE_CHARS = 300;

export function askNotice(question: Question): AskNotice {
  const who = question.terminal
    ? 'Your terminal asks to loosen your rules'
    : question.code !== undefined
      ? `${siteOf(question.url)} asks for the code it sent you: type it in clawd's side panel`
      : `${question.session ? `Agent session “${question.session}” asks` : 'An agent asks'} (${question.profile}): ${kindsText(question.kinds)}`;
  const what = question.what.replace(PAGE_MARKS, '');
  const message = [what, question.url].filter(Boolean).join('\n');
  return {
    id: question.id,
    title: who,
    message: message.length > MESSAGE_CHARS ? `${message.slice(0, MESSAGE_CHARS - 1)}…` : message,
    ...(question.code !== undefined ? { typed: true as const } : {}),
  };
}
