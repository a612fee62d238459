// The documents `npm run build` generates (bundled alone, run once, not shipped): SKILL.md and
// docs/reference.md.

export { referenceMarkdown } from './reference-doc';
export { skillMarkdown } from './skill-doc';
