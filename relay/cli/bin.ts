// Entry point of the bundled `clawd` bin (dist/clawd.js).
import { main } from './main';

// `clawd tabs | head -1`: the reader went away; that is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
});
