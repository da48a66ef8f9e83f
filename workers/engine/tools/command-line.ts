/** The engine's command lines (`npm run transcribe`, `npm run models:download`) read their flags the same way. */
export interface CommandLineFlag {
  arg: string;
  /** Takes the argument after this flag as its value; a flag given last without one is an error naming it. */
  value(): string;
}

export function* commandLineFlags(argv: string[], usage?: string): Generator<CommandLineFlag> {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    yield {
      arg,
      value: () => {
        const next = argv[++i];
        if (next === undefined) throw new Error(`${arg} needs a value${usage ? `\n${usage}` : ''}`);
        return next;
      },
    };
  }
}
