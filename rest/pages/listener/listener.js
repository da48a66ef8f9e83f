// The listener page of a broadcast (`/b/<code>`): asks `/v1/listen/<code>` what it may show, asks a private
// broadcast's password, follows the broadcast's recordings through its events socket and each recording through
// the SDK's subscription (snapshot, then frames after the snapshot's cursor; resumes with `after=` after a drop), and
// plays the live audio on a tap. No framework, no build step of its own, nothing from another host: the SDK's
// subscribe module is served next to this script (rest/routes/listener-page.ts bundles it).

import { subscribeRecording } from './sdk-subscribe.js';

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

const STATE_LABELS = {
  connecting: 'Connecting', waiting: 'Waiting', live: 'Live', paused: 'Paused', ended: 'Ended', finalized: 'Finished', offline: 'Offline',
};

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
  for (const [name, value] of Object.entries(extra)) if (value !== undefined && value !== null && value !== '') params.set(
    name, String(value),
  );
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
  const response = await fetch(apiUrl(path, params), {
    credentials: 'omit', cache: 'no-store', ...init, headers: { accept: 'application/json', ...init.headers },
  });
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
// One recording followed through the SDK's subscribe procedure (src/sdk/subscribe.ts, served as sdk-subscribe.js):
// the SDK keeps the recording's lines right (snapshot, cursor order, after=, gaps, reconnects); the page shows them.

/** A line as this listener reads it: in its language when the segment has that translation, else as spoken. */
const lineText = (segment, lang) =>
  segment.unclear ? 'Audio unclear' : ((lang && segment.translations?.[lang]) || segment.text || '').trim();

class RecordingFollower {
  constructor(page, recording, first) {
    this.page = page;
    this.id = recording.recordingId;
    this.state = recording.state ?? null;
    this.lines = new Map(); // seq → <li>
    this.lastSeq = undefined; // the highest seq with a line
    this.subscription = null;
    /** Bumped when a subscription is replaced: events of the one before are dropped. */
    this.generation = 0;
    this.lastError = null;
    /** Reconnects of the subscriptions this follower replaced (the SDK counts those of the current one). */
    this.earlierReconnects = 0;
    this.restartAttempt = 0;
    this.restartTimer = null;
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

  get reconnects() {
    return this.earlierReconnects + (this.subscription?.reconnects ?? 0);
  }

  start() {
    this.subscribe();
  }

  /** A subscription with the page's credential and language; live audio when this is the recording listened to. */
  subscribe() {
    const generation = ++this.generation;
    const token = listenerToken();
    this.subscription = subscribeRecording({
      baseUrl: ROOT.href,
      recordingId: this.id,
      listenerToken: token,
      shareCode: token ? null : shareCode,
      lang: this.lang ?? null,
      audio: this.page.current === this && this.page.audio.on,
      query: { presence },
      fetch: (request) => fetch(request, { credentials: 'omit', cache: 'no-store' }),
      // Refused before it was ready: perhaps the credential ran out or the broadcast went away.
      shouldReconnect: ({ wasReady }) => wasReady || this.page.stillAllowed(),
      onEvent: (event) => {
        if (generation === this.generation) this.onEvent(event);
      },
    });
  }

  onEvent(event) {
    switch (event.type) {
      case 'segment': {
        const wasAtBottom = atBottom();
        this.show(event.segment);
        followBottom(wasAtBottom);
        break;
      }
      case 'snapshot':
        this.showAll();
        break;
      case 'state':
        this.setState(event.state);
        break;
      case 'audio':
        if (this.page.current === this) this.page.audio.play(event.data);
        break;
      case 'error':
        this.lastError = event.error;
        // A language change the server refused: the subscription stays in the language it had.
        if (this.page.current === this && (this.lang ?? null) !== this.subscription.lang) this.page.languageRefused();
        break;
      case 'connection':
        if (event.status === 'open') {
          this.restartAttempt = 0;
          this.page.connectionBack(this);
        } else if (event.status === 'reconnecting') {
          if (this.page.current === this) this.page.connectionLost();
        } else if (event.status === 'closed') {
          void this.closed();
        }
        break;
      default:
        break;
    }
  }

  /**
   * The subscription ended. At `finalized` that is the end; otherwise it gave up on a failure it does not retry (a
   * refused snapshot read): a refused language falls back to the spoken one, a refused credential is checked,
   * anything else is tried again with a fresh subscription.
   */
  async closed() {
    if (this.stopped) return;
    if (this.state === 'finalized') {
      this.finish();
      return;
    }
    const status = this.lastError?.status;
    if ((status === 400 || status === 403) && this.lang !== undefined) {
      // A language this listener may not read: back to the spoken one (the current recording restarts in it).
      if (this.page.current === this) this.page.languageRefused();
      else this.restart();
      return;
    }
    if (this.page.current === this) this.page.connectionLost();
    if ((status === 401 || status === 403 || status === 404) && !(await this.page.stillAllowed())) return;
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => this.restart(), backoffMs(this.restartAttempt++));
  }

  /** A fresh subscription (its full snapshot puts the lines right); the lines shown stay meanwhile. */
  restart() {
    if (this.stopped) return;
    clearTimeout(this.restartTimer);
    const previous = this.subscription;
    this.generation += 1;
    this.earlierReconnects += previous?.reconnects ?? 0;
    previous?.close();
    this.lastError = null;
    this.done = false;
    this.subscribe();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.subscription?.close();
  }

  /** Live audio on or off for this recording. */
  setAudio(on) {
    this.subscription?.update({ audio: on });
  }

  /** A line per seq, in seq order: a committed seq again replaces its line, never doubles it. */
  show(segment) {
    const seq = Number(segment.seq);
    if (!Number.isInteger(seq)) return;
    const text = lineText(segment, this.subscription?.lang);
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
    line.classList.toggle('unclear', segment.unclear);
    if (typeof segment.speaker === 'number') line.dataset.speaker = String(segment.speaker);
  }

  /** After a snapshot: every line as the subscription now has it, and none it does not have. */
  showAll() {
    const wasAtBottom = atBottom();
    const segments = this.subscription.segments;
    for (const [seq, line] of this.lines) {
      if (!segments.has(seq)) {
        line.remove();
        this.lines.delete(seq);
      }
    }
    this.lastSeq = this.lines.size ? Math.max(...this.lines.keys()) : undefined;
    for (const segment of [...segments.values()].sort((a, b) => a.seq - b.seq)) this.show(segment);
    followBottom(wasAtBottom);
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

  setState(state) {
    if (!state) return;
    this.state = state;
    if (this.page.current === this) this.page.showState();
  }

  finish() {
    this.done = true;
    if (this.page.current === this) this.page.showState();
  }

  /** The page's language changed: the SDK asks the server for it and reads the snapshot in it. */
  changeLanguage() {
    // A finished or given-up subscription reads the transcript again in the language through a fresh one.
    if (!this.subscription || this.subscription.status === 'closed') this.restart();
    else this.subscription.update({ lang: this.lang ?? null });
  }

  /** Test hook: drop the socket as a network would; the SDK reconnects with after=<cursor>. */
  drop() {
    this.subscription?.cut();
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
    if (!languages.includes(this.lang)) {
      this.lang = answer.spokenLanguage && languages.includes(answer.spokenLanguage) ? answer.spokenLanguage : (languages[0] ?? '');
    }
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
    this.current?.changeLanguage();
    setStatus(`${languageName(refused)} is not available here; showing the spoken language.`);
  }

  follow(recording) {
    if (!recording?.recordingId || this.followers.some((follower) => follower.id === recording.recordingId)) return;
    const follower = new RecordingFollower(this, recording, this.followers.length === 0);
    this.followers.push(follower);
    // The earlier recording keeps its socket until it is finalized (its last lines may still change); the audio moves on.
    if (this.audio.on) this.current?.setAudio(false);
    this.current = follower;
    follower.start();
    this.showState();
  }

  openEvents() {
    if (!this.broadcast || this.closed) return;
    clearTimeout(this.eventsTimer);
    const socket = new WebSocket(socketUrl(
      `v1/broadcasts/${encodeURIComponent(this.broadcast.broadcastId)}/events`, credential({ presence }),
    ));
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
        this.follow({
          recordingId: frame.recordingId, transcriptionId: frame.transcriptionId, state: frame.state ?? 'live',
          startedAt: frame.startedAt ?? frame.at ?? new Date().toISOString(),
        });
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
      this.current?.setAudio(false);
    } else {
      this.audio.start(); // inside the click: the browser lets this context play
      this.current?.setAudio(true);
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
    return page.current?.subscription?.lastCursor ?? null;
  },
  get reconnects() {
    return page.followers.reduce((sum, follower) => sum + follower.reconnects, 0);
  },
  get connected() {
    return page.current?.subscription?.status === 'open' && !page.offline;
  },
};

void page.load();
