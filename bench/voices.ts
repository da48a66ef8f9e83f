/**
 * Text to speech (workers/engine/tts): per sentence, in three languages, the real-time factor of synthesis
 * (seconds of work per second of speech, phonemes included) and the first-audio latency of the streaming form
 * (text in → first chunk's samples out). The model is found as the tests find it (test/helpers/kokoro.ts).
 *
 * `npm run bench -- voices` prints the table.
 */
import { cpus } from 'node:os';
import { Kokoro, KOKORO_SAMPLE_RATE } from '../workers/engine/tts/index.js';
import { kokoroTestDir } from '../test/helpers/kokoro.js';

const SENTENCES: [voice: string, text: string][] = [
  ['af_heart', 'The quick brown fox jumps over the lazy dog.'],
  ['af_heart', 'Please remember to bring your passport, your tickets and a warm coat, because the nights are cold in the mountains.'],
  ['bm_george', 'The meeting has been moved to Thursday afternoon.'],
  ['ef_dora', 'Hola, me llamo Juan y vivo en Madrid.'],
  ['ef_dora', 'Mañana por la mañana vamos a visitar el museo con nuestros amigos de la universidad.'],
  ['ff_siwis', "Le train pour Paris part à huit heures du matin."],
];
/** Several sentences: the stream's first chunk is one sentence, so its latency does not grow with the text. */
const PARAGRAPH: [string, string] = [
  'af_heart',
  'Welcome to the meeting. Today we will review the budget for next year. After that, each team will present its plans, and we will close '
    + 'with questions from the audience.',
];

export async function benchVoices(): Promise<{ table: string }> {
  const loadStarted = performance.now();
  const kokoro = await Kokoro.load({ modelDir: await kokoroTestDir() });
  const loadS = (performance.now() - loadStarted) / 1000;
  await kokoro.synthesize('Warm up.', { voice: 'af_heart' });
  const rows = [
    '| voice | text | audio s | synthesis s | real-time factor | first audio s |',
    '|---|---|---|---|---|---|',
  ];
  for (const [voice, text] of [...SENTENCES, PARAGRAPH]) {
    let started = performance.now();
    const audio = await kokoro.synthesize(text, { voice });
    const synthesisS = (performance.now() - started) / 1000;
    const audioS = audio.length / KOKORO_SAMPLE_RATE;
    started = performance.now();
    let firstS = 0;
    for await (const chunk of kokoro.stream(text, { voice })) {
      if (chunk.index === 0) firstS = (performance.now() - started) / 1000;
    }
    const shown = text.length > 50 ? `${text.slice(0, 47)}…` : text;
    rows.push(`| ${voice} | ${shown} (${text.length} chars) | ${audioS.toFixed(2)} | ${synthesisS.toFixed(2)} | `
      + `${(synthesisS / audioS).toFixed(2)} | ${firstS.toFixed(2)} |`);
  }
  return { table: `${rows.join('\n')}\n\nModel load ${loadS.toFixed(2)} s; ${cpus().length} cores, ENGINE_THREADS `
    + `${process.env.ENGINE_THREADS ?? 'unset (all cores)'}.` };
}
