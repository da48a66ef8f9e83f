// The listener page of a broadcast (`/b/<code>`): asks `/v1/listen/<code>` what it may show, asks a private
// broadcast's password, follows the broadcast's recordings through its events socket and each recording through
// the subscribe socket (snapshot, then frames after the snapshot's cursor; resumes with `after=` after a drop), and
// plays the live audio on a tap. No framework, no build step, nothing from another host.

/** The server's root as this page sees it: the script lives at `<root>/b/_assets/listener.js`. */
const ROOT = new URL('../../', import.meta.url);
const SAMPLE_RATE = 16_000;
/** How far ahead of the clock live audio is scheduled, and the most it may lag before it is cut back. */
const AUDIO_LEAD_S = 0.15;
const AUDIO_MAX_LAG_S = 1.5;

const $ = (id) => document.getElementById(id);
const ui = {
  title: $('title'),
  state: $('state'),
  status: $('status'),
  missing: $('missing'),
  form: $('password-form'),
  password: $('password'),
  passwordError: $('password-error'),
  passwordSubmit: $('password-submit'),
  player: $('player'),
  lang: $('lang'),
  listen: $('listen'),
  empty: $('empty'),
  captions: $('captions'),
};

const STATE_LABELS = { connecting: 'Connecting', waiting: 'Waiting', live: 'Live', paused: 'Paused', ended: 'Ended', finalized: 'Finished', offline: 'Offline' };

// ---------------------------------------------------------------------------------------------------------------
// Address, credential, HTTP

const code = (() => {
  const match = /\/b\/([^/]+)\/?$/.exec(location.pathname);
  try {
    return match ? decodeURIComponent(match[1]) : '';
  } catch {
    return '';
  }
})();
const shareCode = new URLSearchParams(location.search).get('shareCode');
const tokenKey = `sg-listener:${code}`;
/** This page's presence id, shared by its sockets, so the broadcast counts it once among its listeners. */
const presence = Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, '0')).join('');

function storedToken() {
  try {
    return sessionStorage.getItem(tokenKey);
  } catch {
    return null; // storage refused (private mode, policy): the token lives in memory only
  }
}
let memoryToken = null;
const listenerToken = () => memoryToken ?? storedToken();
function keepToken(token) {
  memoryToken = token;
  try {
    if (token) sessionStorage.setItem(tokenKey, token);
    else sessionStorage.removeItem(tokenKey);
  } catch { /* kept in memory */ }
}

/** The page's credential as query parameters: its listener token, else the share code of its address, else none. */
function credential(extra = {}) {
  const params = new URLSearchParams();
  const token = listenerToken();
  if (token) params.set('listenerToken', token);
  else if (shareCode) params.set('shareCode', shareCode);
  for (const [name, value] of Object.entries(extra)) if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  return params;
}

function apiUrl(path, params) {
  const url = new URL(path, ROOT);
  if (params) url.search = params.toString();
  return url;
}

function socketUrl(path, params) {
  const url = apiUrl(path, params);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

class HttpError extends Error {
  constructor(status, body, retryAfterS) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? null;
    this.body = body;
    this.retryAfterS = retryAfterS;
  }
}

async function requestJson(path, params, init = {}) {
  const response = await fetch(apiUrl(path, params), { credentials: 'omit', cache: 'no-store', ...init, headers: { accept: 'application/json', ...init.headers } });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new HttpError(response.status, body, Number(response.headers.get('retry-after')) || null);
  return body;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** 0.5 s, 1 s, 2 s, … up to 15 s, with a little jitter so a room of listeners does not come back at once. */
const backoffMs = (attempt) => Math.min(15_000, 500 * 2 ** Math.min(attempt, 5)) * (0.8 + Math.random() * 0.4);

// ---------------------------------------------------------------------------------------------------------------
// What the listener sees around the captions

function show(section) {
  for (const element of [ui.missing, ui.form, ui.player]) element.hidden = element !== section;
}

function setStatus(text, state) {
  ui.status.textContent = text;
  if (state) {
    ui.state.dataset.state = state;
    ui.state.textContent = STATE_LABELS[state] ?? state;
  }
}

const languageNames = (() => {
  try {
    return new Intl.DisplayNames([navigator.language || 'en'], { type: 'language' });
  } catch {
    return null;
  }
})();
const languageName = (lang) => {
  try {
    return languageNames?.of(lang) ?? lang;
  } catch {
    return lang;
  }
};

function formatTime(iso) {
  const date = iso ? new Date(iso) : null;
  if (!date || Number.isNaN(date.getTime())) return '';
  return date.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

/** Keeps the newest line in view while the reader is at the bottom; leaves them alone when they scrolled back. */
function atBottom() {
  const root = document.scrollingElement ?? document.documentElement;
  return root.scrollHeight - (root.scrollTop + window.innerHeight) < 120;
}
function followBottom(wasAtBottom) {
  if (wasAtBottom) ui.captions.lastElementChild?.scrollIntoView({ block: 'end' });
}

// ---------------------------------------------------------------------------------------------------------------
// Live audio: 16 kHz mono signed 16-bit little-endian PCM in binary frames, scheduled back to back

class LiveAudio {
  constructor() {
    this.context = null;
    this.on = false;
    this.nextTime = 0;
    this.carry = null; // an odd trailing byte kept for the next frame
  }

  /** Called from the click handler: an AudioContext made there may play. */
  start() {
    if (!this.context) this.context = new AudioContext();
    void this.context.resume();
    this.on = true;
    this.nextTime = 0;
  }

  stop() {
    this.on = false;
    this.carry = null;
    void this.context?.suspend();
  }

  play(data) {
    if (!this.on || !this.context) return;
    let bytes = new Uint8Array(data);
    if (this.carry) {
      const joined = new Uint8Array(this.carry.length + bytes.length);
      joined.set(this.carry);
      joined.set(bytes, this.carry.length);
      bytes = joined;
      this.carry = null;
    }
    if (bytes.length % 2) {
      this.carry = bytes.slice(bytes.length - 1);
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    const samples = bytes.length / 2;
    if (!samples) return;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const buffer = this.context.createBuffer(1, samples, SAMPLE_RATE);
    const channel = buffer.getChannelData(0);
    for (let i = 0; i < samples; i += 1) channel[i] = view.getInt16(i * 2, true) / 32768;
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.context.destination);
    const now = this.context.currentTime;
    // Late (first buffer, or a stall): start a small lead ahead; too far ahead (a burst): cut back to stay live.
    if (this.nextTime < now + 0.02 || this.nextTime > now + AUDIO_MAX_LAG_S) this.nextTime = now + AUDIO_LEAD_S;
    source.start(this.nextTime);
    this.nextTime += buffer.duration;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// One recording followed through its subscribe socket

/** A line as this listener reads it: in its language when the segment has that translation, else as spoken. */
const lineText = (segment, lang) => (segment.suppressed ? 'Audio unclear' : ((lang && segment.translations?.[lang]) || segment.text || '').trim());

class RecordingFollower {
  constructor(page, recording, first) {
    this.page = page;
    this.id = recording.recordingId;
    this.state = recording.state ?? null;
    this.lines = new Map(); // seq → <li>
    this.segments = new Map(); // seq → what is known of the segment (its text, its translations)
    this.lastSeq = undefined; // the highest seq with a line
    this.applied = -1; // the last applied cursor
    this.synced = false; // a snapshot was applied: reconnects resume with after=
    this.pending = [];
    this.busy = false; // a transcript read is under way: frames wait in `pending`
    this.generation = 0;
    this.socket = null;
    this.attempt = 0;
    this.reconnects = 0;
    this.reconnectTimer = null;
    this.done = false;
    this.stopped = false;
    this.divider = document.createElement('li');
    this.divider.className = first ? 'divider first' : 'divider';
    this.divider.dataset.recording = this.id;
    this.divider.setAttribute('role', 'separator');
    const when = formatTime(recording.startedAt);
    this.divider.textContent = when ? `Recording of ${when}` : 'Recording';
    ui.captions.append(this.divider);
  }

  /** The `lang` to ask for: left out while it is the spoken language (the same transcript, and never refused). */
  get lang() {
    return this.page.lang && this.page.lang !== this.page.broadcast?.spokenLanguage ? this.page.lang : undefined;
  }

  start() {
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    this.socket?.close();
    this.socket = null;
  }

  connect() {
    if (this.stopped || this.done) return;
    const params = credential({ lang: this.lang, after: this.synced ? this.applied : undefined, presence });
    const socket = new WebSocket(socketUrl(`v1/recordings/${encodeURIComponent(this.id)}/subscribe`, params));
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    let ready = false;
    socket.onmessage = (event) => {
      if (socket !== this.socket) return;
      if (typeof event.data !== 'string') {
        if (this.page.current === this) this.page.audio.play(event.data);
        return;
      }
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame.type === 'subscribe.ready') {
        ready = true;
        this.attempt = 0;
        this.onReady(frame);
      } else if (frame.type === 'error') {
        // The server closes after an error (slow_consumer and the like): the close handler reconnects.
        this.lastError = frame;
      } else {
        this.pending.push(frame);
        this.pump();
      }
    };
    socket.onclose = () => {
      if (socket !== this.socket) return;
      this.socket = null;
      if (this.stopped || this.done) return;
      this.scheduleReconnect(ready);
    };
  }

  scheduleReconnect(wasReady) {
    this.reconnects += 1;
    if (this.page.current === this) this.page.connectionLost();
    const attempt = this.attempt++;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(async () => {
      // Refused before it was ready: perhaps the credential ran out or the broadcast went away.
      if (!wasReady && attempt >= 1 && !(await this.page.stillAllowed())) return;
      this.connect();
    }, backoffMs(attempt));
  }

  send(frame) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  onReady(frame) {
    this.setState(frame.state);
    if (this.page.current === this && this.page.audio.on) this.send({ type: 'subscribe.update', audio: true });
    this.page.connectionBack(this);
    if (this.synced) this.pump(); // resumed with after=: the server replays what followed
    else void this.readTranscript(undefined);
  }

  /**
   * Reads the transcript (all of it, or what changed after a cursor) while frames wait, merges it by seq, then
   * applies the waiting frames past its `lastSeq`.
   */
  async readTranscript(after, full = after === undefined) {
    const generation = ++this.generation;
    this.busy = true;
    for (let attempt = 0; ; attempt += 1) {
      try {
        const snapshot = await requestJson(`v1/recordings/${encodeURIComponent(this.id)}/transcript`, credential({ lang: this.lang, after }));
        if (generation !== this.generation || this.stopped) return;
        const wasAtBottom = atBottom();
        this.merge(snapshot.segments ?? [], full);
        if (typeof snapshot.lastSeq === 'number') this.applied = Math.max(this.applied, snapshot.lastSeq);
        if (!this.synced && snapshot.state) this.setState(snapshot.state);
        this.synced = true;
        followBottom(wasAtBottom);
        break;
      } catch (error) {
        if (generation !== this.generation || this.stopped) return;
        if (error instanceof HttpError && (error.status === 400 || error.status === 403) && this.lang !== undefined) {
          // A language this listener may not read: back to the spoken one, read again at once.
          this.page.languageRefused();
          continue;
        }
        if (error instanceof HttpError && (error.status === 401 || error.status === 403 || error.status === 404)) {
          if (!(await this.page.stillAllowed())) return;
        }
        await sleep(backoffMs(attempt));
        if (generation !== this.generation || this.stopped) return;
      }
    }
    this.busy = false;
    this.pump();
    if (this.state === 'finalized') this.finish();
  }

  pump() {
    if (this.busy) return;
    const wasAtBottom = atBottom();
    while (this.pending.length && !this.busy) {
      const frame = this.pending.shift();
      const cursor = typeof frame.cursor === 'number' ? frame.cursor : null;
      if (cursor !== null && cursor <= this.applied) continue; // already in the snapshot or applied
      this.apply(frame);
      if (cursor !== null && frame.type !== 'subscribe.gap') this.applied = Math.max(this.applied, cursor);
    }
    followBottom(wasAtBottom);
  }

  apply(frame) {
    switch (frame.type) {
      case 'transcript.committed':
      case 'transcript.amended':
      case 'transcript.corrected':
        if (frame.segment) this.upsert({ ...frame.segment, seq: frame.segment.seq ?? frame.seq });
        break;
      case 'noop':
        if (frame.reason === 'unclear' && typeof frame.seq === 'number') this.upsert({ seq: frame.seq, suppressed: true });
        break;
      case 'transcript.translated':
        if (typeof frame.seq === 'number' && this.lines.has(frame.seq)) this.upsert({ seq: frame.seq, translations: frame.translations ?? {} });
        break;
      case 'recording.state':
        this.setState(frame.state);
        if (frame.state === 'finalized') this.finish();
        break;
      case 'subscribe.gap':
        // The server could not replay everything after our cursor: read what changed since it, by seq.
        void this.readTranscript(this.applied, false);
        break;
      default:
        break; // transcript.sentence and anything newer: the cursor moves on
    }
  }

  /** A line per seq, in seq order: a committed seq again replaces its line, never doubles it. */
  upsert(segment) {
    const seq = Number(segment.seq);
    if (!Number.isInteger(seq)) return;
    // A translation that arrives alone (transcript.translated) keeps the line's spoken text for a later language.
    const known = this.segments.get(seq);
    const merged = { ...known, ...segment, translations: { ...known?.translations, ...segment.translations } };
    this.segments.set(seq, merged);
    const text = lineText(merged, this.lang);
    let line = this.lines.get(seq);
    if (!line) {
      line = document.createElement('li');
      line.dataset.seq = String(seq);
      line.dataset.recording = this.id;
      this.lines.set(seq, line);
      this.insert(line, seq);
      this.page.lineAdded();
    }
    if (line.textContent !== text) line.textContent = text;
    line.classList.toggle('unclear', Boolean(segment.suppressed));
    if (typeof segment.speaker === 'number') line.dataset.speaker = String(segment.speaker);
  }

  insert(line, seq) {
    // The usual case, a new last line: after the group's last line (or its divider).
    if (this.lastSeq === undefined || seq > this.lastSeq) {
      (this.lastSeq === undefined ? this.divider : this.lines.get(this.lastSeq)).after(line);
      this.lastSeq = seq;
      return;
    }
    let before = null;
    let after = this.divider;
    for (const [other, element] of this.lines) {
      if (other === seq) continue;
      if (other > seq && (!before || other < Number(before.dataset.seq))) before = element;
      if (other < seq && (after === this.divider || other > Number(after.dataset.seq))) after = element;
    }
    if (before) before.before(line);
    else after.after(line);
  }

  merge(segments, full) {
    const seen = new Set();
    for (const segment of [...segments].sort((a, b) => a.seq - b.seq)) {
      seen.add(segment.seq);
      this.upsert(segment);
    }
    if (!full) return;
    for (const [seq, line] of this.lines) {
      if (!seen.has(seq)) {
        line.remove();
        this.lines.delete(seq);
      }
    }
    this.lastSeq = this.lines.size ? Math.max(...this.lines.keys()) : undefined;
  }

  setState(state) {
    if (!state) return;
    this.state = state;
    if (this.page.current === this) this.page.showState();
  }

  finish() {
    this.done = true;
    this.socket?.close();
    this.socket = null;
    if (this.page.current === this) this.page.showState();
  }

  changeLanguage() {
    this.send({ type: 'subscribe.update', lang: this.page.lang || null });
    void this.readTranscript(undefined);
  }

  /** Test hook: drop the socket as a network would; the follower reconnects with after=<cursor>. */
  drop() {
    this.socket?.close(4000, 'dropped by the page');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The page: access, the broadcast's events, which recording is followed

class ListenerPage {
  constructor() {
    this.broadcast = null;
    this.followers = [];
    this.current = null;
    this.audio = new LiveAudio();
    this.lang = '';
    this.events = null;
    this.eventsAttempt = 0;
    this.eventsTimer = null;
    this.offline = false;
    this.closed = false;
  }

  async load() {
    if (!code) {
      this.missing();
      return;
    }
    setStatus('Connecting…', 'connecting');
    for (let attempt = 0; ; attempt += 1) {
      try {
        const answer = await requestJson(`v1/listen/${encodeURIComponent(code)}`, credential());
        this.open(answer);
        return;
      } catch (error) {
        if (error instanceof HttpError && error.status === 404) {
          this.missing();
          return;
        }
        if (error instanceof HttpError && error.status === 401 && listenerToken()) {
          keepToken(null); // a token that is no longer good: ask again without it
          continue;
        }
        setStatus('Cannot reach the broadcast; trying again…', 'offline');
        await sleep(backoffMs(attempt));
      }
    }
  }

  missing() {
    this.stopAll();
    document.title = 'Broadcast not found';
    show(ui.missing);
    setStatus('This broadcast does not exist.', 'offline');
  }

  open(answer) {
    this.broadcast = answer;
    document.title = answer.name ? `${answer.name} · Live captions` : 'Live captions';
    ui.title.textContent = answer.name || 'Live captions';
    if (!answer.authorized) {
      if (listenerToken()) keepToken(null);
      this.askPassword();
      return;
    }
    show(ui.player);
    this.fillLanguages(answer);
    const recording = answer.currentRecording ?? answer.lastRecording;
    if (recording) this.follow(recording);
    else this.showState();
    this.openEvents();
  }

  askPassword() {
    this.stopAll();
    show(ui.form);
    setStatus('This broadcast is private: enter its password.', 'waiting');
    ui.password.focus();
  }

  async submitPassword(event) {
    event.preventDefault();
    const password = ui.password.value;
    if (!password) {
      this.passwordError('Enter the password.');
      return;
    }
    ui.passwordSubmit.disabled = true;
    this.passwordError(null);
    try {
      const answer = await requestJson(`v1/listen/${encodeURIComponent(code)}/token`, undefined, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password }),
      });
      keepToken(answer.listenerToken);
      ui.password.value = '';
      await this.load();
    } catch (error) {
      if (error instanceof HttpError && error.status === 403) this.passwordError('Wrong password. Try again.');
      else if (error instanceof HttpError && error.status === 404) this.missing();
      else if (error instanceof HttpError && error.status === 429) {
        const wait = error.retryAfterS;
        this.passwordError(`Too many tries. Wait ${wait > 0 ? `${Math.ceil(wait)} seconds` : 'a moment'} and try again.`);
      } else this.passwordError('Could not check the password. Try again.');
      ui.password.select();
      ui.password.focus();
    } finally {
      ui.passwordSubmit.disabled = false;
    }
  }

  passwordError(text) {
    ui.passwordError.hidden = !text;
    ui.passwordError.textContent = text ?? '';
    ui.password.setAttribute('aria-invalid', text ? 'true' : 'false');
  }

  /** Whether the page may still follow the broadcast; when it may not, it shows why (and asks the password again). */
  async stillAllowed() {
    try {
      const answer = await requestJson(`v1/listen/${encodeURIComponent(code)}`, credential());
      if (answer.authorized) return true;
      keepToken(null);
      this.askPassword();
      return false;
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) {
        this.missing();
        return false;
      }
      if (error instanceof HttpError && error.status === 401 && listenerToken()) {
        keepToken(null);
        this.askPassword();
        return false;
      }
      return true; // the network: keep trying
    }
  }

  fillLanguages(answer) {
    const languages = [...new Set([...(answer.languages ?? []), ...(answer.spokenLanguage ? [answer.spokenLanguage] : [])])];
    ui.lang.replaceChildren();
    if (!languages.length) {
      const option = new Option('As spoken', '');
      ui.lang.append(option);
    }
    for (const lang of languages) ui.lang.append(new Option(languageName(lang), lang));
    if (!languages.includes(this.lang)) this.lang = answer.spokenLanguage && languages.includes(answer.spokenLanguage) ? answer.spokenLanguage : (languages[0] ?? '');
    ui.lang.value = this.lang;
    ui.lang.disabled = languages.length < 2;
  }

  changeLanguage() {
    this.lang = ui.lang.value;
    this.current?.changeLanguage();
  }

  languageRefused() {
    const refused = this.lang;
    this.lang = this.broadcast?.spokenLanguage ?? '';
    ui.lang.value = this.lang;
    this.current?.send({ type: 'subscribe.update', lang: this.lang || null });
    setStatus(`${languageName(refused)} is not available here; showing the spoken language.`);
  }

  follow(recording) {
    if (!recording?.recordingId || this.followers.some((follower) => follower.id === recording.recordingId)) return;
    const follower = new RecordingFollower(this, recording, this.followers.length === 0);
    this.followers.push(follower);
    // The earlier recording keeps its socket until it is finalized (its last lines may still change); the audio moves on.
    if (this.audio.on) this.current?.send({ type: 'subscribe.update', audio: false });
    this.current = follower;
    follower.start();
    this.showState();
  }

  openEvents() {
    if (!this.broadcast || this.closed) return;
    clearTimeout(this.eventsTimer);
    const socket = new WebSocket(socketUrl(`v1/broadcasts/${encodeURIComponent(this.broadcast.broadcastId)}/events`, credential({ presence })));
    this.events = socket;
    let ready = false;
    socket.onmessage = (event) => {
      if (socket !== this.events || typeof event.data !== 'string') return;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame.type === 'events.ready') {
        ready = true;
        this.eventsAttempt = 0;
        if (frame.currentRecording) this.follow(frame.currentRecording);
      } else if (frame.type === 'recording.started' && frame.recordingId) {
        this.follow({ recordingId: frame.recordingId, transcriptionId: frame.transcriptionId, state: frame.state ?? 'live', startedAt: frame.startedAt ?? frame.at ?? new Date().toISOString() });
      }
    };
    socket.onclose = () => {
      if (socket !== this.events || this.closed) return;
      this.events = null;
      const attempt = this.eventsAttempt++;
      this.eventsTimer = setTimeout(async () => {
        if (!ready && attempt >= 1 && !(await this.stillAllowed())) return;
        this.openEvents();
      }, backoffMs(attempt));
    };
  }

  stopAll() {
    clearTimeout(this.eventsTimer);
    const events = this.events;
    this.events = null;
    events?.close();
    for (const follower of this.followers) follower.stop();
    this.followers = [];
    this.current = null;
    ui.captions.replaceChildren();
    ui.empty.hidden = false;
    this.audio.stop();
    this.showListen();
  }

  lineAdded() {
    ui.empty.hidden = true;
  }

  connectionLost() {
    this.offline = true;
    setStatus('Connection lost; reconnecting…', 'offline');
  }

  connectionBack(follower) {
    if (follower === this.current) this.offline = false;
    this.showState();
  }

  showState() {
    const follower = this.current;
    this.showListen();
    if (!follower) {
      setStatus('Waiting for the broadcast to start.', 'waiting');
      return;
    }
    if (this.offline && !follower.done) {
      setStatus('Connection lost; reconnecting…', 'offline');
      return;
    }
    switch (follower.state) {
      case 'live': setStatus('Live: captions appear as they are spoken.', 'live'); break;
      case 'paused': setStatus('Paused: the speaker will be back.', 'paused'); break;
      case 'ended': setStatus('Ended: finishing the transcript…', 'ended'); break;
      case 'finalized': setStatus('Finished. Waiting for the next recording.', 'finalized'); break;
      default: setStatus('Connecting…', 'connecting');
    }
  }

  showListen() {
    const canListen = Boolean(this.current && (this.current.state === 'live' || this.current.state === 'paused'));
    if (!canListen && this.audio.on) this.audio.stop();
    ui.listen.disabled = !canListen;
    ui.listen.setAttribute('aria-pressed', String(this.audio.on));
    ui.listen.textContent = this.audio.on ? 'Stop listening' : 'Listen';
  }

  toggleAudio() {
    if (this.audio.on) {
      this.audio.stop();
      this.current?.send({ type: 'subscribe.update', audio: false });
    } else {
      this.audio.start(); // inside the click: the browser lets this context play
      this.current?.send({ type: 'subscribe.update', audio: true });
    }
    this.showListen();
  }
}

const page = new ListenerPage();
ui.form.addEventListener('submit', (event) => void page.submitPassword(event));
ui.lang.addEventListener('change', () => page.changeLanguage());
ui.listen.addEventListener('click', () => page.toggleAudio());

/** For tests and the curious: what the page holds, and a way to cut its socket as a network would. */
window.__listener = {
  page,
  dropSocket() {
    page.current?.drop();
  },
  get cursor() {
    return page.current?.applied ?? null;
  },
  get reconnects() {
    return page.followers.reduce((sum, follower) => sum + follower.reconnects, 0);
  },
  get connected() {
    return page.current?.socket?.readyState === WebSocket.OPEN && !page.offline;
  },
};

void page.load();
