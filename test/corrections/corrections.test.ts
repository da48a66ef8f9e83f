/**
 * Corrections through REST and GraphQL on a real file transcription of goforward.wav (its settled segments), plus
 * segments of known text committed after it the way every path commits text (`commitSegment`), for the voiced
 * rule's cases and lines over several segments.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { commitSegment, inTransaction } from '../../src/transcript/events.js';
import { Follower } from '../helpers/follower.js';
import { expectInvalidOption, expectStatus, json, upload, waitForJob } from '../helpers/http.js';
import { commitKnown } from '../helpers/segments.js';
import { useTestServer } from '../helpers/server.js';

const server = useTestServer();

interface Segment { seq: number; text: string; words: Array<{ text: string }> }
interface Correction {
  id: string; kind: string; seq: number; wordIdx: number | null; from: string; to: string; voiced: boolean | null;
  notVoicedReason: string | null; revertedAt: string | null; appliedAt: string; actor: Record<string, unknown>;
}

let recordingId = '';
let transcriptionId = '';
let shareCode = '';
let firstSeq = 0;

const transcript = async (): Promise<{ lastSeq: number; segments: Segment[]; sentences: Array<{ id: string; text: string }> }> => json(
  await server.request(`/v1/recordings/${recordingId}/transcript`),
);
const segmentText = async (seq: number) => (await transcript()).segments.find((s) => s.seq === seq)!.text;
const correct = (body: unknown, auth?: string | null) => server.postJson(`/v1/recordings/${recordingId}/corrections`, body, { auth });
const listAll = async (): Promise<Correction[]> => (await json(
  await server.request(`/v1/recordings/${recordingId}/corrections?limit=500`),
)).corrections;

/** Commits a segment of known text after the recognizer's, as file jobs and live recordings commit theirs. */
async function seed(text: string, start: number): Promise<number> {
  const said = text.split(' ');
  const words = said.map((word, i) => ({ start: start + i * 0.3, end: start + i * 0.3 + 0.25, text: ` ${word}`, prob: 0.9 }));
  return inTransaction({ prisma: server.prisma, pubsub: server.app.pubsub }, recordingId, async (tx) => {
    const { seq, frame } = await commitSegment(tx, recordingId, {
      speaker: -1, start, end: words[words.length - 1]!.end, text, words, confidence: 0.9, language: 'en', decoder: 'accuracy',
    });
    return { result: seq, frames: [frame] };
  });
}

beforeAll(async () => {
  const created = await json(await upload(server, { name: 'Corrections' }));
  recordingId = created.recordingId;
  transcriptionId = created.id;
  shareCode = created.shareLink.code;
  await waitForJob(server, recordingId, ['done']);
  const { segments } = await transcript();
  expect(segments.length).toBeGreaterThan(0);
  firstSeq = segments[0]!.seq;
}, 120_000);

describe('applying corrections', () => {
  it('applies a word edit and a line rewrite over neighbouring segments, read back in the snapshot and the exports', async () => {
    const original = (await transcript()).segments.find((s) => s.seq === firstSeq)!;
    const a = await seed('The quick brown fox', 100);
    const b = await seed('jumps over the dog', 102);
    const applied = await expectStatus(
      await correct({ edits: [{ seq: firstSeq, wordIdx: 0, to: 'Onward' }], lines: [{ seqs: [a, b], text: 'A slow red fox walks past the '
        + 'lazy dog' }] }),
      201,
    );
    expect(applied.corrections.map((c: Correction) => [c.kind, c.seq])).toEqual([['word', firstSeq], ['line', a], ['line', b]]);
    expect(applied.corrections[0]).toMatchObject({
      from: original.words[0]!.text.trim(), to: 'Onward', wordIdx: 0, revertedAt: null, actor: { displayName: 'test key', userId: null },
    });
    expect(applied.corrections[0].actor.apiKeyId).toMatch(/./);
    expect(new Set(applied.corrections.map((c: Correction) => c.id)).size).toBe(3);

    const after = await transcript();
    const first = after.segments.find((s) => s.seq === firstSeq)!;
    expect(first.words[0]!.text.trim()).toBe('Onward');
    expect(first.text.startsWith('Onward')).toBe(true);
    const line = [a, b].map((seq) => after.segments.find((s) => s.seq === seq)!.text).join(' ');
    expect(line).toBe('A slow red fox walks past the lazy dog');

    const exported = await json(await server.request(`/v1/recordings/${recordingId}/export?format=json`));
    expect(JSON.stringify(exported)).toContain('Onward');
    expect(JSON.stringify(exported)).toContain('lazy dog');
    const srt = await (await server.request(`/v1/recordings/${recordingId}/export?format=srt`)).text();
    expect(srt).toContain('Onward');
    expect(srt).toContain('walks past');
  });

  it('is atomic: a batch with one target that is not settled applies nothing', async () => {
    const before = await transcript();
    const count = (await listAll()).length;
    const refused = await expectStatus(
      await correct({ edits: [{ seq: firstSeq, wordIdx: 0, to: 'Never' }, { seq: 99_999, wordIdx: 0, to: 'x' }] }), 409, 'invalid_state',
    );
    expect(refused.data.details).toMatchObject({ field: 'edits[1].seq', seq: 99_999 });
    await expectStatus(
      await correct({ edits: [{ seq: firstSeq, wordIdx: 0, to: 'Never' }], lines: [{ seqs: [99_998, 99_999], text: 'nothing' }] }), 409,
      'invalid_state',
    );
    await expectInvalidOption(
      await correct({ edits: [{ seq: firstSeq, wordIdx: 0, to: 'Never' }, { seq: firstSeq, wordIdx: 10_000, to: 'x' }] }),
      'edits[1].wordIdx',
    );
    const after = await transcript();
    expect(after.lastSeq).toBe(before.lastSeq);
    expect(after.segments).toEqual(before.segments);
    expect(await listAll()).toHaveLength(count);
  });

  it('refuses a line over segments that are not neighbours, and malformed batches, naming the field', async () => {
    const a = await seed('one line here', 110);
    await seed('another line', 112);
    const c = await seed('third line', 114);
    await expectInvalidOption(await correct({ lines: [{ seqs: [a, c], text: 'joined' }] }), 'lines[0].seqs');
    await expectInvalidOption(await correct({ lines: [{ seqs: [a + 1, a], text: 'backwards' }] }), 'lines[0].seqs');
    await expectInvalidOption(await correct({}), 'edits');
    await expectInvalidOption(await correct({ edits: [{ seq: a, wordIdx: 0, to: '  ' }] }), 'edits[0].to');
    await expectInvalidOption(await correct({ edits: [], lines: [], extra: true }), 'extra');
  });
});

describe('the voiced rule', () => {
  it('passes case, accents and number formatting; fails a new word and a dropped "not"', async () => {
    const seq = await seed('I have twenty-one apples and I do not know the café', 120);
    const verdicts = async (body: unknown) => (await expectStatus(await correct(body), 201)).corrections.map(
      (c: Correction) => [c.voiced, c.notVoicedReason],
    );
    expect(await verdicts({ edits: [{ seq, wordIdx: 2, to: '21' }, { seq, wordIdx: 10, to: 'CAFE.' }] })).toEqual([
      [true, null], [true, null],
    ]);
    expect(await verdicts({ lines: [{ seqs: [seq], text: 'I HAVE 21 APPLES, AND I DO NOT KNOW THE CAFÉ!' }] })).toEqual([[true, null]]);
    expect(await verdicts({ edits: [{ seq, wordIdx: 3, to: 'pears' }] })).toEqual([[false, 'rewrite']]);
    expect(await verdicts({ lines: [{ seqs: [seq], text: 'I have 21 apples and I do know the cafe' }] })).toEqual([[false, 'rewrite']]);
    expect(await verdicts({ lines: [{ seqs: [seq], text: "I have 21 apples and I don't know the cafe" }] })).toEqual([[true, null]]);
  });

  it('voices a word the recognizer\'s text lacks when a fresh reading of the line\'s audio has it', async () => {
    // A line over the recording's real audio whose stored text the recognizer got wrong: the audio still says its words.
    const real = (await transcript()).segments.find((s) => s.seq === firstSeq)!;
    const spoken = real.text.split(/\s+/).map((word) => word.replace(/[^\p{L}]/gu, '')).sort((a, b) => b.length - a.length)[0]!;
    const words = ['mumble', 'mumble'].map((text, i) => ({ start: i, end: i + 1, text: ` ${text}`, prob: 0.2 }));
    const seq = await inTransaction({ prisma: server.prisma, pubsub: server.app.pubsub }, recordingId, async (tx) => {
      const committed = await commitSegment(tx, recordingId, {
        speaker: -1, start: 0, end: 2.5, text: 'mumble mumble', words, confidence: 0.2, language: 'en', decoder: 'accuracy',
      });
      return { result: committed.seq, frames: [committed.frame] };
    });
    const [heard] = (await expectStatus(await correct({ edits: [{ seq, wordIdx: 0, to: spoken }] }), 201)).corrections;
    expect(heard, `"${spoken}" from "${real.text}"`).toMatchObject({ voiced: true, notVoicedReason: null });
    const [invented] = (await expectStatus(await correct({ edits: [{ seq, wordIdx: 1, to: 'pineapple' }] }), 201)).corrections;
    expect(invented).toMatchObject({ voiced: false, notVoicedReason: 'rewrite' });
  }, 60_000);
});

describe('reverting', () => {
  it('puts the text back, shows revertedAt, refuses twice and while a later correction of the same words stands', async () => {
    const seq = await seed('please turn left here', 130);
    const [edit] = (await expectStatus(await correct({ edits: [{ seq, wordIdx: 2, to: 'right' }] }), 201)).corrections;
    const [other] = (await expectStatus(await correct({ edits: [{ seq, wordIdx: 0, to: 'Kindly' }] }), 201)).corrections;
    expect(await segmentText(seq)).toBe('Kindly turn right here');
    const [later] = (await expectStatus(await correct({ edits: [{ seq, wordIdx: 2, to: 'around' }] }), 201)).corrections;
    const blocked = await expectStatus(await server.request(`/v1/corrections/${edit.id}/revert`, { method: 'POST' }), 409, 'invalid_state');
    expect(blocked.data.details.laterCorrectionId).toBe(later.id);

    const revertedLater = await expectStatus(await server.request(`/v1/corrections/${later.id}/revert`, { method: 'POST' }), 200);
    expect(revertedLater).toMatchObject({ id: later.id, voiced: null, notVoicedReason: null });
    expect(Date.parse(revertedLater.revertedAt)).not.toBeNaN();
    expect(await segmentText(seq)).toBe('Kindly turn right here');
    // A later edit of another word does not block: only this word goes back.
    await expectStatus(await server.request(`/v1/corrections/${edit.id}/revert`, { method: 'POST' }), 200);
    expect(await segmentText(seq)).toBe('Kindly turn left here');
    await expectStatus(await server.request(`/v1/corrections/${other.id}/revert`, { method: 'POST' }), 200);
    expect(await segmentText(seq)).toBe('please turn left here');
    await expectStatus(await server.request(`/v1/corrections/${edit.id}/revert`, { method: 'POST' }), 409, 'invalid_state');

    const listed = (await listAll()).find((c) => c.id === edit.id)!;
    expect(listed.revertedAt).toMatch(/^\d{4}-/);
    await expectStatus(await server.request('/v1/corrections/cor_nonexistent/revert', { method: 'POST' }), 404, 'not_found');
  });

  it('reverts a line rewrite over several segments one segment at a time', async () => {
    const a = await seed('first half', 140);
    const b = await seed('second half', 142);
    const { corrections } = await expectStatus(await correct({ lines: [{ seqs: [a, b], text: 'all of it rewritten now' }] }), 201);
    for (const correction of corrections) await expectStatus(
      await server.request(`/v1/corrections/${correction.id}/revert`, { method: 'POST' }), 200,
    );
    expect([await segmentText(a), await segmentText(b)]).toEqual(['first half', 'second half']);
  });
});

describe('listing', () => {
  it('answers newest first, paged with cursor', async () => {
    const all = await listAll();
    expect(all.length).toBeGreaterThan(5);
    const times = all.map((c) => Date.parse(c.appliedAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    const paged: Correction[] = [];
    let cursor: string | undefined;
    do {
      const page = await json(
        await server.request(`/v1/recordings/${recordingId}/corrections?limit=2${cursor ? `&cursor=${cursor}` : ''}`),
      );
      expect(page.corrections.length).toBeLessThanOrEqual(2);
      paged.push(...page.corrections);
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged.map((c) => c.id)).toEqual(all.map((c) => c.id));
    await expectInvalidOption(await server.request(`/v1/recordings/${recordingId}/corrections?cursor=nonsense`), 'cursor');
  });
});

describe('who may correct', () => {
  it('is the owner with write: another account gets 404, a share link 401, a read-only key 403', async () => {
    const otherAccount = await server.createAccount();
    const { key: otherKey } = await server.createKey(['*'], { accountId: otherAccount });
    const [one] = await listAll();
    await expectStatus(await server.request(`/v1/recordings/${recordingId}/corrections`, { auth: otherKey }), 404, 'not_found');
    await expectStatus(await correct({ edits: [{ seq: firstSeq, wordIdx: 0, to: 'x' }] }, otherKey), 404, 'not_found');
    await expectStatus(await server.request(`/v1/corrections/${one!.id}/revert`, { method: 'POST', auth: otherKey }), 404, 'not_found');

    expect((await server.request(`/v1/recordings/${recordingId}/corrections?shareCode=${shareCode}`, { auth: null })).status).toBe(401);
    expect((await server.postJson(
      `/v1/recordings/${recordingId}/corrections?shareCode=${shareCode}`, { edits: [{ seq: firstSeq, wordIdx: 0, to: 'x' }] },
      { auth: null },
    )).status).toBe(401);
    const { key: reader } = await server.createKey(['read']);
    await expectStatus(await correct({ edits: [{ seq: firstSeq, wordIdx: 0, to: 'x' }] }, reader), 403, 'forbidden');
    await expectStatus(await server.request(`/v1/recordings/${recordingId}/corrections`, { auth: reader }), 200);
    expect(transcriptionId).toMatch(/./);
  });
});

describe('GraphQL', () => {
  it('corrects, lists and reverts with the same rules', async () => {
    const seq = await seed('graph queries are fun', 150);
    const fields = 'id kind seq wordIdx from to voiced notVoicedReason revertedAt actor { apiKeyId displayName userId }';
    const applied = await json(await server.graphql(
      `mutation ($id: ID!, $input: CorrectionBatchInput!) { correctRecording(recordingId: $id, input: $input) { batchId corrections { `
        + `${fields} } } }`,
      { id: recordingId, input: { edits: [{ seq, wordIdx: 3, to: 'FUN!' }] } },
    ));
    expect(applied.errors).toBeUndefined();
    const correction = applied.data.correctRecording.corrections[0];
    expect(correction).toMatchObject({ kind: 'word', seq, wordIdx: 3, from: 'fun', to: 'FUN!', voiced: true, revertedAt: null });
    const refused = await json(await server.graphql(
      'mutation ($id: ID!, $input: CorrectionBatchInput!) { correctRecording(recordingId: $id, input: $input) { batchId } }',
      { id: recordingId, input: { lines: [{ seqs: [seq, seq + 2], text: 'x' }] } },
    ));
    expect(refused.errors[0].extensions).toMatchObject({ code: 'invalid_options' });
    const listed = await json(await server.graphql(
      `query ($id: ID!) { recordingCorrections(recordingId: $id, limit: 1) { corrections { ${fields} } nextCursor } }`, { id: recordingId },
    ));
    expect(listed.data.recordingCorrections.corrections[0].id).toBe(correction.id);
    expect(listed.data.recordingCorrections.nextCursor).toMatch(/./);
    const reverted = await json(await server.graphql(
      `mutation ($id: ID!) { revertCorrection(id: $id) { ${fields} } }`, { id: correction.id },
    ));
    expect(reverted.data.revertCorrection.revertedAt).toMatch(/./);
    expect(await segmentText(seq)).toBe('graph queries are fun');
  });
});

describe('subscribers', () => {
  it('see transcript.corrected in place, with the cursor the snapshot reports', async () => {
    const follower = new Follower({ baseUrl: server.url, recordingId, authorization: `Bearer ${server.apiKey}` });
    await follower.start();
    try {
      const seq = await seed('watch this line change', 160);
      await follower.until('the seeded line', () => follower.lines.get(seq)?.text === 'watch this line change', 20_000);
      await expectStatus(await correct({ edits: [{ seq, wordIdx: 3, to: 'move' }] }), 201);
      await follower.until('the corrected line', () => follower.lines.get(seq)?.text === 'watch this line move', 20_000);
      const frame = follower.frames.find((f) => f.type === 'transcript.corrected' && f.seq === seq)!;
      expect(frame).toMatchObject({ recordingId, segment: { seq, text: 'watch this line move' } });
      // The sentence holding the line follows in the same log step: the snapshot's cursor is its.
      await follower.until(
        'the corrected sentence',
        () => follower.frames.some((f) => f.type === 'transcript.sentence' && f.cursor === (frame.cursor as number) + 1), 20_000,
      );
      const sentence = follower.frames.find((f) => f.type === 'transcript.sentence' && f.cursor === (frame.cursor as number) + 1)!;
      const body = sentence.sentence as { id: string; text: string; seqs: number[] };
      expect(sentence.sentenceId).toBe(body.id);
      expect(body.seqs).toContain(seq);
      expect(body.text).toMatch(/watch this line move$/);
      const snapshot = await transcript();
      expect(sentence.cursor).toBe(snapshot.lastSeq);
      expect(snapshot.sentences.find((s) => s.id === body.id)).toMatchObject({ text: body.text });
      const changed = await json(await server.request(`/v1/recordings/${recordingId}/transcript?after=${(frame.cursor as number) - 1}`));
      expect(changed.segments.map((s: Segment) => s.seq)).toEqual([seq]);
    } finally {
      follower.close();
    }
  });
});

describe('a segment that follows the recording\'s script', () => {
  it('refuses word edits (wordIdx counts the recognizer\'s words, text is the script\'s) and takes a line rewrite', async () => {
    const live = await expectStatus(
      await server.postJson('/v1/transcriptions/live', { name: 'Teleprompter', settings: { spokenLanguage: 'en' } }), 201,
    );
    const script = 'Good morning, everyone. Welcome to the quarterly review.';
    const started = await expectStatus(await server.postJson(`/v1/transcriptions/${live.id}/recordings`, { scriptText: script }), 201);
    const scripted: string = started.recording.id;
    const heard = 'good morning every one welcome to the quarterly review';
    const seq = await commitKnown(server, scripted, { text: heard, start: 0 });
    const read = async () => (await json(await server.request(`/v1/recordings/${scripted}/transcript`))).segments.find(
      (s: { seq: number }) => s.seq === seq,
    );
    const correctScripted = (body: unknown) => server.postJson(`/v1/recordings/${scripted}/corrections`, body);
    const asCommitted = await read();
    expect(asCommitted).toMatchObject({ text: script, recognizedText: heard, scriptFrom: 0, scriptPos: 8 });
    expect(asCommitted.words.map((w: { text: string }) => w.text.trim())).toEqual(heard.split(' '));

    // wordIdx 3 is the recognizer's "one", not the script's "Welcome": refused, naming the edit, pointing to lines.
    const refused = await expectInvalidOption(await correctScripted({ edits: [{ seq, wordIdx: 3, to: 'everyone' }] }), 'edits[0].seq');
    expect(refused.message).toMatch(/script/);
    expect(refused.message).toMatch(/lines/);
    // The whole batch is refused: its line rewrite of another segment is not applied either.
    const other = await commitKnown(server, scripted, { text: 'unscripted words said after the script', start: 10 });
    await expectInvalidOption(
      await correctScripted({ edits: [{ seq: other, wordIdx: 0, to: 'Unscripted' }, { seq, wordIdx: 0, to: 'Good' }] }), 'edits[1].seq',
    );
    expect((await read()).text).toBe(script);
    expect(await json(await server.request(`/v1/recordings/${scripted}/corrections`))).toMatchObject({ corrections: [] });

    // A line rewrite says the line as it should read; the recognizer's text is kept.
    const rewritten = 'Good morning, everybody. Welcome to the quarterly review.';
    const [line] = (await expectStatus(await correctScripted({ lines: [{ seqs: [seq], text: rewritten }] }), 201)).corrections;
    expect(line).toMatchObject({ kind: 'line', from: script, to: rewritten });
    expect(await read()).toMatchObject({ text: rewritten, recognizedText: heard });
    // Its text is built from its words again: word edits are taken.
    const [word] = (await expectStatus(await correctScripted({ edits: [{ seq, wordIdx: 2, to: 'everyone.' }] }), 201)).corrections;
    expect((await read()).text).toBe(script);
    // Reverting both brings the script's text back, and with it the refusal.
    await expectStatus(await server.request(`/v1/corrections/${word.id}/revert`, { method: 'POST' }), 200);
    await expectStatus(await server.request(`/v1/corrections/${line.id}/revert`, { method: 'POST' }), 200);
    expect((await read()).text).toBe(script);
    await expectInvalidOption(await correctScripted({ edits: [{ seq, wordIdx: 0, to: 'Hello' }] }), 'edits[0].seq');
    const viaGraphql = await json(await server.graphql(
      'mutation ($id: ID!, $seq: Int!) { correctRecording(recordingId: $id, input: { edits: [{ seq: $seq, wordIdx: 0, to: "Hello" }] }) { '
        + 'batchId } }', { id: scripted, seq },
    ));
    expect(viaGraphql.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_options', details: { field: 'edits[0].seq' } });
  });
});
