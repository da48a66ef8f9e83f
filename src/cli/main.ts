/**
 * The `speechgate` command line: a client of the server built on the SDK (src/sdk) and npm packages only (layer
 * rule `cli-uses-the-sdk`). This module declares the program and its global options and hands each command to its
 * module under commands/; commander's own refusals (an unknown option, a missing argument) exit 2.
 */
import { Command, CommanderError, Option } from 'commander';
import { EXIT, EXIT_CODE_HELP } from './errors.js';
import { DEFAULT_URL } from './config.js';
import { keysCommand } from './commands/keys.js';
import { listenCommand } from './commands/listen.js';
import { liveCommand } from './commands/live.js';
import { loginCommand } from './commands/login.js';
import { logoutCommand } from './commands/logout.js';
import { streamCommand } from './commands/stream.js';
import { transcribeCommand } from './commands/transcribe.js';
import { transcriptionsCommand } from './commands/transcriptions.js';
import { SDK_VERSION as VERSION } from '../sdk/version.js';

// A reader that stops early (`speechgate --help | head`) closes the pipe: that ends the output, not the command.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const CREDENTIAL_HELP = `Server and key: --url/--key, else SPEECHGATE_URL/SPEECHGATE_API_KEY, else what \`speechgate login\` stored
in $XDG_CONFIG_HOME/speechgate/config.json (default ~/.config/speechgate/config.json); the URL defaults to ${DEFAULT_URL}.`;

export function buildProgram(): Command {
  const program = new Command('speechgate')
    .description('Transcribe files and links, stream audio in real time, publish and follow live broadcasts, manage keys.')
    .version(VERSION)
    .addOption(new Option('--url <url>', 'the server (e.g. https://speech.example.org)'))
    .addOption(new Option('--key <key>', 'the API key'))
    .option('--json', 'machine-readable output only on stdout: one JSON document (JSON lines for streaming commands)')
    .addHelpText('after', `\n${CREDENTIAL_HELP}\n\n${EXIT_CODE_HELP}`);
  for (const command of [
    loginCommand(), logoutCommand(), transcribeCommand(), streamCommand(), liveCommand(), listenCommand(), keysCommand(),
    transcriptionsCommand(),
  ]) {
    program.addCommand(command);
  }
  reportUsageErrorsByException(program);
  return program;
}

/** Every command, nested ones too, throws its usage errors to main (exit 2) instead of exiting by itself with 1. */
function reportUsageErrorsByException(command: Command): void {
  command.exitOverride().showHelpAfterError('(run with --help for usage)');
  for (const child of command.commands) reportUsageErrorsByException(child);
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // Help and --version end well; everything else commander refuses is a usage error (already printed).
    process.exitCode = error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? EXIT.ok : EXIT.usage;
  }
}

await main(process.argv.slice(2));
