/** Health, language lists and realtime capabilities, from the configured model and from registered providers. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectUnavailable } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** `server` runs the configured model (the npm-installed whisper-tiny by default); `ownModel` a model dir of ours. */
let server: TestServer;
let ownModel: TestServer;
let modelsDir: string;
beforeAll(async () => {
  server = await startTestServer({ env: { MAX_UPLOAD_BYTES: '1234567', REALTIME_MAX_DURATION_S: '900' } });
  // The language list must come from this directory's generation_config.json.
  modelsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-models-'));
  await fs.mkdir(path.join(modelsDir, 'test-model'));
  await fs.writeFile(path.join(modelsDir, 'test-model', 'config.json'), '{}');
  await fs.writeFile(
    path.join(modelsDir, 'test-model', 'generation_config.json'),
    JSON.stringify({ lang_to_id: { '<|fr|>': 50265, '<|de|>': 50261, '<|ja|>': 50266 } }),
  );
  ownModel = await startTestServer({ env: { MODELS_DIR: modelsDir, MODEL: 'test-model' } });
});
afterAll(async () => {
  await server?.close();
  await ownModel?.close();
  await fs.rm(modelsDir, { recursive: true, force: true });
});

describe('meta routes', () => {
  it('GET /v1/health answers without a credential', async () => {
    const response = await server.request('/v1/health', { auth: null });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok' });
  });

  it('GET /v1/languages lists the model\'s languages with picker names', async () => {
    const response = await ownModel.request('/v1/languages');
    expect(response.status).toBe(200);
    const body = await response.json() as { transcription: unknown[]; translation: unknown[]; voice: unknown[] };
    expect(body.transcription).toEqual([
      { code: 'de', name: 'German', nativeName: 'Deutsch' },
      { code: 'fr', name: 'French', nativeName: 'français' },
      { code: 'ja', name: 'Japanese', nativeName: '日本語' },
    ]);
    // What the installed Apertium pairs translate into (the test machine has English with Spanish, Catalan, Galician).
    expect((body.translation as Array<{ code: string }>).map((language) => language.code)).toEqual(['ca', 'en', 'es', 'gl']);
    // The languages a catalogue voice speaks (src/voices registers them), with picker names.
    expect((body.voice as Array<{ code: string }>).map((language) => language.code)).toEqual([
      'en-US', 'en-GB', 'es', 'fr', 'hi', 'it', 'ja', 'pt-BR', 'zh',
    ]);
    expect(body.voice).toContainEqual({ code: 'es', name: 'Spanish', nativeName: 'español' });
  });

  it('GET /v1/realtime/capabilities answers the Capabilities record of the configured model', async () => {
    const response = await server.request('/v1/realtime/capabilities');
    expect(response.status).toBe(200);
    const capabilities = await response.json() as Record<string, any>;
    expect(Object.keys(capabilities).sort()).toEqual(['audio', 'languages', 'latencyModes', 'limits', 'speakerLabelModes']);
    expect(capabilities.languages.length).toBeGreaterThanOrEqual(99); // multilingual Whisper
    expect(capabilities.languages).toEqual(expect.arrayContaining(['en', 'de', 'ja']));
    expect(capabilities.audio).toEqual({ encodings: ['pcm_f32le'], sampleRates: [16000], channels: [1] });
    expect(capabilities.limits).toMatchObject({ maxUploadBytes: 1234567, maxDurationS: 900 });
    const languages = await (await server.request('/v1/languages')).json() as { transcription: { code: string }[] };
    expect(languages.transcription.map((l) => l.code).sort()).toEqual([...capabilities.languages].sort());
  });

  it('parts that own a list register it', async () => {
    ownModel.app.services.capabilities.register({
      translationLanguages: () => ['es'],
      realtime: (base) => ({ ...base, latencyModes: ['auto', 'fast', 'accuracy'], speakerLabelModes: ['auto', 'on', 'off'] }),
    });
    const languages = await (await ownModel.request('/v1/languages')).json() as { translation: { code: string }[] };
    expect(languages.translation).toEqual([{ code: 'es', name: 'Spanish', nativeName: 'español' }]);
    const capabilities = await (await ownModel.request('/v1/realtime/capabilities')).json() as {
      latencyModes: string[]; speakerLabelModes: string[];
    };
    expect(capabilities.latencyModes).toEqual(['auto', 'fast', 'accuracy']);
    expect(capabilities.speakerLabelModes).toEqual(['auto', 'on', 'off']);
  });

  it('language lists need a credential', async () => {
    expect((await server.request('/v1/languages', { auth: null })).status).toBe(401);
  });
});

describe('a server whose model is missing or unloadable', () => {

  it.each([
    ['a model name found nowhere', 'missing'],
    ['a model directory without a tokenizer or language table', 'unloadable'],
  ])('GET /v1/realtime/capabilities and /v1/languages answer 503 unavailable with Retry-After: %s', async (_what, kind) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sg-models-'));
    if (kind === 'unloadable') {
      await fs.mkdir(path.join(dir, 'broken-model'));
      await fs.writeFile(path.join(dir, 'broken-model', 'config.json'), '{}');
    }
    const logged: { level: string; message: string }[] = [];
    const capture = (level: string) => (_fields: Record<string, unknown>, message: string) => { logged.push({ level, message }); };
    const bare = await startTestServer({
      workers: [],
      logger: { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error') },
      env: {
        MODELS_DIR: dir, MODEL: kind === 'missing' ? 'whisper-not-installed' : 'broken-model',
        REALTIME_SECRET: 'meta-suite-secret-0123456789abcdef',
      },
    });
    try {
      await expectUnavailable(await bare.request('/v1/realtime/capabilities'));
      await expectUnavailable(await bare.request('/v1/languages'));
      // Asked again (nothing cached from the failure), still the same answer.
      await expectUnavailable(await bare.request('/v1/realtime/capabilities'));
      await expectUnavailable(await bare.postJson('/v1/realtime/sessions', {}));
      // Not ready is expected, not a fault of ours: nothing is logged as an error.
      expect(logged.filter((entry) => entry.level === 'error')).toEqual([]);
    } finally {
      await bare.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
