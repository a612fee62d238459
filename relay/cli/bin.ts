// Entry point of the bundled `clawd` bin (dist/clawd.js).
import { main } from './main';

main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
});
