/**
 * Asking a person at the terminal (the server address, an API key without echoing it), and reading a secret
 * piped on stdin (`speechgate login < key.txt`): a key never has to appear on a command line, where other users of
 * the machine could read it in the process list.
 */
import readline from 'node:readline';
import { Writable } from 'node:stream';
import { CliError, EXIT } from './errors.js';

/** Asks on stderr and reads one line from the terminal; with `hidden`, what is typed is not shown. */
export async function ask(question: string, options: { hidden?: boolean; defaultValue?: string } = {}): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  const shown = options.defaultValue ? `${question} [${options.defaultValue}]: ` : `${question}: `;
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      rl.question(shown, resolve);
      // Ctrl-C while asking: the answer never comes, the command ends as interrupted.
      rl.once('SIGINT', () => reject(new CliError('interrupted', EXIT.failure, 'interrupted')));
      muted = options.hidden === true;
    });
    if (options.hidden) process.stderr.write('\n');
    return answer.trim() || options.defaultValue || '';
  } finally {
    rl.close();
  }
}

/** Everything piped on stdin, trimmed (a key file's trailing newline is not part of the key). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}
