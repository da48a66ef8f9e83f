/**
 * Apertium, the local rule-based translator (Debian packages `apertium` and a pair each: `apertium-eng-spa`,
 * `apertium-eng-cat`, `apertium-en-gl`…). Apertium is GPL: it runs as a separate process (`apertium -u <mode>`,
 * text on stdin, translation on stdout) and is never linked into this one; without it installed the server
 * simply offers no local translation. The text goes in a temporary file named on the command line: the `apertium`
 * script opens its input by name (`/dev/stdin` by default), which fails when stdin is a socket, as Node's pipes are.
 *
 * Its pairs are its installed modes (`apertium -l`: `eng-spa`, `spa-eng`, `en-gl`…), named by ISO 639-3 or 639-1
 * codes; they are mapped to the ISO 639-1 codes the API speaks. Variant modes (`eng-cat_valencia`, `spa-eng_US`)
 * are left out: the plain mode is the pair's default. Apertium cannot detect a language, so it serves only calls
 * that name the source.
 *
 * A batch is one process: the texts go as paragraphs separated by a blank line. Apertium's text deformatter
 * closes a sentence at a blank line (its `-n` option turns that off), so no rule reorders words across two texts,
 * and blank lines come back where they went in; a text's own line breaks are made spaces first. Starting the
 * pipeline costs about half a second, so batching is what makes it fast.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TranslationSettings } from '../core/config/translation.js';
import { providerError, type TranslationProvider } from './provider.js';

/** ISO 639-3 names Apertium's modes use, for the languages it has pairs of, to the ISO 639-1 codes of the API. */
const ISO_639_1: Record<string, string> = {
  afr: 'af', arg: 'an', ara: 'ar', bel: 'be', bre: 'br', bul: 'bg', cat: 'ca', ces: 'cs', cym: 'cy', dan: 'da',
  deu: 'de', ell: 'el', eng: 'en', epo: 'eo', est: 'et', eus: 'eu', fao: 'fo', fin: 'fi', fra: 'fr', gla: 'gd',
  gle: 'ga', glg: 'gl', heb: 'he', hin: 'hi', hrv: 'hr', hun: 'hu', ind: 'id', isl: 'is', ita: 'it', kaz: 'kk',
  kir: 'ky', lav: 'lv', lit: 'lt', mkd: 'mk', mlt: 'mt', msa: 'ms', nld: 'nl', nno: 'nn', nob: 'nb', oci: 'oc',
  pol: 'pl', por: 'pt', ron: 'ro', rus: 'ru', slk: 'sk', slv: 'sl', sme: 'se', spa: 'es', sqi: 'sq', srd: 'sc',
  srp: 'sr', swe: 'sv', tat: 'tt', tur: 'tr', ukr: 'uk', urd: 'ur', uzb: 'uz',
};

/** A mode's language as an ISO 639-1 code: `eng` → `en`, `gl` → `gl`; null for one not in the table. */
function isoCode(name: string): string | null {
  if (name.length === 2) return name;
  return ISO_639_1[name] ?? null;
}

/** The pairs of a list of modes: `"en>es"` → `eng-spa`. The first mode naming a pair wins. */
export function pairsOf(modes: string[]): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const mode of modes) {
    const match = /^([a-z]{2,3})-([a-z]{2,3})$/.exec(mode);
    if (!match) continue;
    const [from, to] = [isoCode(match[1]!), isoCode(match[2]!)];
    if (from && to && !pairs.has(`${from}>${to}`)) pairs.set(`${from}>${to}`, mode);
  }
  return pairs;
}

/** Runs at most this many Apertium pipelines at once (each is a chain of processes). */
const MAX_RUNNING = Math.max(1, Math.min(4, os.availableParallelism()));

export function apertiumProvider(settings: Pick<TranslationSettings, 'apertium' | 'timeoutMs'>): TranslationProvider {
  const bin = settings.apertium.path ?? settings.apertium.bin;
  let pairs: Promise<Map<string, string>> | null = null;
  let running = 0;
  const waiting: Array<() => void> = [];

  /** `apertium <args>`: its stdout, or the error its failure stands for. */
  async function run(args: string[]): Promise<string> {
    if (running >= MAX_RUNNING) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await new Promise<string>((resolve, reject) => {
        // Its own process group: `apertium` is a shell script running a pipeline, and a timeout must end all of it.
        const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
        const out: Buffer[] = [];
        let err = '';
        const timer = setTimeout(() => {
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            child.kill('SIGKILL'); // the group is gone already
          }
          reject(providerError('apertium', 'timeout', `Apertium did not finish within ${settings.timeoutMs} ms (apertium `
            + `${args.join(' ')}).`));
        }, settings.timeoutMs);
        child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
        child.on('error', (error: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          reject(error.code === 'ENOENT'
            ? providerError('apertium', 'not_installed', `The Apertium binary "${bin}" is not installed (or not on PATH); install the `
              + `apertium package and its language pairs, or set TRANSLATION_APERTIUM_BIN.`, { cause: error })
            : providerError('apertium', 'failed', `Apertium could not be started: ${error.message}`, { cause: error }));
        });
        child.on('close', (code, signal) => {
          clearTimeout(timer);
          if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
          else if (signal !== 'SIGKILL') reject(providerError('apertium', 'failed', `Apertium (apertium ${args.join(' ')}) exited with `
            + `${code ?? signal}: ${err.trim().slice(0, 300)}`));
        });
      });
    } finally {
      running--;
      waiting.shift()?.();
    }
  }

  function installedPairs(): Promise<Map<string, string>> {
    if (!pairs) {
      const listing = run(['-l']).then((text) => pairsOf(text.split('\n').map((line) => line.trim()).filter(Boolean)));
      pairs = listing;
      listing.catch(() => {
        if (pairs === listing) pairs = null; // a pair installed later, or a binary fixed, is picked up
      });
    }
    return pairs;
  }

  /** The mode for a pair, by code or by primary language (`en-US` → `en`). */
  async function modeFor(from: string | null, to: string): Promise<string | null> {
    if (!from) return null;
    const installed = await installedPairs();
    const primary = (code: string) => code.split('-')[0]!;
    return installed.get(`${from}>${to}`) ?? installed.get(`${primary(from)}>${primary(to)}`) ?? null;
  }

  return {
    name: 'apertium',
    async targets() {
      return [...new Set([...(await installedPairs()).keys()].map((pair) => pair.split('>')[1]!))];
    },
    serves: async (from, to) => (await modeFor(from, to)) !== null,
    async translate(texts, from, to) {
      const mode = await modeFor(from, to);
      if (!mode) throw providerError('apertium', 'not_installed', `No Apertium pair ${from ?? 'auto'}→${to} is installed.`);
      const input = texts.map((text) => text.replace(/\s*[\r\n]+\s*/g, ' ').trim()).join('\n\n');
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-apertium-'));
      let output: string;
      try {
        await fs.writeFile(path.join(dir, 'in.txt'), `${input}\n`);
        output = (await run(['-u', mode, path.join(dir, 'in.txt')])).replace(/\s+$/, '');
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
      const translated = output.split(/\n[ \t]*\n/).map((text) => text.trim());
      if (translated.length !== texts.length) {
        throw providerError('apertium', 'bad_answer', `Apertium (${mode}) answered ${translated.length} paragraphs for ${texts.length} `
          + `texts.`);
      }
      return translated;
    },
  };
}
