// Page text that reads as an instruction to an AI agent — it addresses the assistant or its
// instructions, asks to reveal a prompt or secrets, or tells an AI to send, transfer or open
// something — is flagged in the agent format, not removed (the person may have written it, and
// an agent should see what the page says). One list of patterns, English first, then a few
// words of other languages; each pattern answers a shape of injection seen in the wild. The
// rule is judged by its false alarms too: none on the six corpus pages (test/e2e/page-text). Here,
// below the agent layer, because titles said inline in answers are flagged the same way.

/** What a flagged line ends with. */
export const INSTRUCTION_FLAG = '⚠ instruction-like page text';

/** Who an injection talks to. */
const ADDRESSEE = String.raw`(?:ai|a\.i\.|assistant|chatbot|chat ?gpt|gpt|claude|gemini|copilot|llm|language model|agent|bot)s?`;

const PATTERNS: RegExp[] = [
  // "Ignore all previous instructions", "disregard the above rules", "forget your guidelines".
  /\b(?:ignore|disregard|forget|override)\b[^.!?\n]{0,40}\b(?:previous|prior|above|earlier|preceding|all|your|system|original)\b[^.!?\n]{0,30}\b(?:instructions?|prompts?|rules|directions|guidelines|directives|commands|context)\b/i,
  // "New instructions:", "system prompt", "developer message", "jailbreak".
  /\b(?:new|updated|real|actual|hidden|secret)\s+(?:instructions?|directives?|system prompt)\b\s*[:\-–—]/i,
  /\b(?:system prompt|developer (?:message|mode)|jailbreak|prompt injection)\b/i,
  // "You are now an AI that…", "act as an unrestricted assistant".
  new RegExp(
    String.raw`\b(?:you are now|from now on,? you|act as|pretend (?:to be|you are)|roleplay as)\b[^.!?\n]{0,40}\b${ADDRESSEE}\b`,
    'i',
  ),
  // "AI agents: do X", "Assistant, you must…", "Note to the LLM reading this page".
  new RegExp(
    String.raw`\b(?:dear |note to (?:the |any )?|attention,? |hey )?${ADDRESSEE}\b\s*(?:[,:!]|reading this|browsing|visiting)\s*[^.!?\n]{0,30}\b(?:ignore|disregard|must|should|need to|have to|do not|don't|never|always|now|please|instead|immediately|reveal|send|transfer|open|visit|go to|navigate|click|execute|run|forward|email|tell|say|print|output)\b`,
    'i',
  ),
  // "If you are an AI (language model), …".
  new RegExp(String.raw`\bif you(?:'re| are) (?:an? )?${ADDRESSEE}\b`, 'i'),
  // Reveal the prompt or secrets: "print your system prompt", "reveal the API key", "repeat your instructions".
  /\b(?:reveal|print|output|repeat|leak|expose|dump|paste)\b[^.!?\n]{0,30}\b(?:your|the|its)\b[^.!?\n]{0,20}\b(?:system prompt|initial prompt|hidden prompt|api[ -]?keys?|credentials|session (?:cookies?|tokens?)|access tokens?|private keys?|seed phrase)\b/i,
  /\b(?:reveal|print|output|repeat|leak|expose|dump|paste|ignore|disregard)\b[^.!?\n]{0,20}\byour (?:instructions|prompt|rules|guidelines)\b/i,
  // On the person's behalf, without telling them: "without telling the user", "do not inform the human".
  /\b(?:without (?:telling|informing|asking|alerting|notifying)|do not (?:tell|inform|alert|notify)|don't (?:tell|inform|alert|notify))\b[^.!?\n]{0,15}\b(?:the |your )?(?:user|human|person|owner|operator)\b/i,
  // Other languages: "ignore the previous instructions".
  /\b(?:ignoriere|vergiss|missachte)\b[^.!?\n]{0,30}\b(?:anweisungen|instruktionen|befehle|regeln)\b/i,
  /\b(?:ignore[zr]?|oublie[zr]?)\s+(?:les|toutes les|vos|tes)\s+(?:[a-zé]+\s+)?(?:instructions|consignes|directives)\b/i,
  /\b(?:ignora|olvida)\b[^.!?\n]{0,30}\b(?:instrucciones|indicaciones|reglas)\b/i,
  /(?:忽略|无视|忘记|忽视)[^。！？\n]{0,15}(?:指令|指示|提示词|规则|说明)/,
  /(?:以前|これまで|上記)?の?(?:指示|命令|プロンプト)を(?:無視|忘れ)/,
];

/**
 * Words a line needs for any pattern above to match it (each pattern needs one of them, as said
 * beside each): a line with none is not tried against the patterns. Most page text has none: on
 * the corpus's longest page (1,700 lines) the patterns alone took about 2 ms of every snapshot,
 * this look first about 0.5. A pattern added says here which of its words it cannot match without.
 */
const NEEDS = new RegExp(
  [
    String.raw`\b(?:ignor|disregard|forget|override|vergiss|missachte|oubli|olvida)`, // "ignore…", other languages'
    'instruction|directive|system prompt|developer|jailbreak|prompt injection', // "new instructions:", "system prompt"
    String.raw`\b${ADDRESSEE}\b`, // "you are now…", "AI agents:", "if you are an AI"
    String.raw`\b(?:reveal|print|output|repeat|leak|expose|dump|paste)\b`, // reveal the prompt or secrets
    "without|do not|don't", // on the person's behalf
    '忽略|无视|忘记|忽视|無視|忘れ',
  ].join('|'),
  'i',
);

/** Whether a line of page text reads as an instruction to an AI agent. */
export function readsAsInstruction(text: string): boolean {
  return NEEDS.test(text) && PATTERNS.some((pattern) => pattern.test(text));
}

/** The line, with the flag when it reads as one. */
export function flagged(text: string): string {
  return readsAsInstruction(text) ? `${text} ${INSTRUCTION_FLAG}` : text;
}
