/**
 * What every command's action gets: its output (text or `--json`), the server and key it talks with (flags over
 * environment over `speechgate login`), an SDK client, and a signal that Ctrl-C aborts. `action()` wraps a
 * command's function so that any failure becomes one line on stderr and the exit code of its class (errors.ts).
 */
import type { Command } from 'commander';
import { WebSocket } from 'ws';
import { createClient, type SpeechgateClient, type WebSocketConstructor } from '../sdk/index.js';
import { resolveCredentials, type Credentials } from './config.js';
import { CliError, EXIT, exitCodeOf, jsonOf, messageOf, usageError } from './errors.js';
import { Output } from './output.js';
import { SDK_VERSION as VERSION } from '../sdk/version.js';

/** The options every command takes (declared on the program, accepted after the command's name too). */
export interface GlobalOptions {
  url?: string;
  key?: string;
  json?: boolean;
}

export const USER_AGENT = `speechgate-cli/${VERSION}`;

/** Node 20 has no global WebSocket: the sockets (realtime, subscribe) go through `ws`, which also sends headers. */
export const NODE_WEBSOCKET = WebSocket as unknown as WebSocketConstructor;

export class CommandContext {
  readonly out: Output;
  private readonly interrupt = new AbortController();
  private resolved: Credentials | null = null;

  constructor(readonly globals: GlobalOptions) {
    this.out = new Output(globals.json === true);
  }

  /** Aborted by the first Ctrl-C: a command ends cleanly on it (a second one ends the process at once). */
  get signal(): AbortSignal {
    return this.interrupt.signal;
  }

  listenForInterrupt(): () => void {
    const onInterrupt = () => {
      if (this.interrupt.signal.aborted) process.exit(130);
      this.interrupt.abort();
    };
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onInterrupt);
    return () => {
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onInterrupt);
    };
  }

  async credentials(): Promise<Credentials> {
    if (this.resolved) return this.resolved;
    try {
      this.resolved = await resolveCredentials(this.globals);
    } catch (error) {
      if (error instanceof TypeError) throw usageError(`The server address is not valid: ${error.message}`);
      throw error;
    }
    return this.resolved;
  }

  /** A client with the key; no key anywhere is an authentication failure that says how to get one. */
  async client(): Promise<SpeechgateClient> {
    const { url, apiKey } = await this.credentials();
    if (!apiKey) {
      throw new CliError('not logged in: run `speechgate login` (or pass --key, or set SPEECHGATE_API_KEY)', EXIT.auth, 'unauthorized');
    }
    return createClient({ baseUrl: url, apiKey, WebSocket: NODE_WEBSOCKET, headers: { 'user-agent': USER_AGENT } });
  }

  /** A client without a credential, for what anyone may read (a public broadcast). */
  async anonymousClient(): Promise<SpeechgateClient> {
    const { url } = await this.credentials();
    return createClient({ baseUrl: url, WebSocket: NODE_WEBSOCKET, headers: { 'user-agent': USER_AGENT } });
  }
}

/** Reports a failure as the CLI does everywhere, and sets the exit code. */
export function fail(out: Output, error: unknown): void {
  out.error(messageOf(error), jsonOf(error));
  process.exitCode = exitCodeOf(error);
}

/**
 * A commander action running `run` with the command's context, its arguments (as declared) and its own options.
 * Failures are reported here, so main only sees commander's own (usage) errors.
 */
export function action<Options = Record<string, unknown>>(run: (ctx: CommandContext, args: string[], options: Options) => Promise<void>) {
  return async (...params: unknown[]): Promise<void> => {
    const command = params.at(-1) as Command;
    const ctx = new CommandContext(command.optsWithGlobals<GlobalOptions>());
    const stopListening = ctx.listenForInterrupt();
    try {
      await run(ctx, command.processedArgs as string[], command.opts<Options & object>() as Options);
    } catch (error) {
      fail(ctx.out, error);
    } finally {
      stopListening();
    }
  };
}
