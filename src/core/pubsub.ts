/**
 * Redis-backed pub/sub: every gateway process and worker sharing a Redis sees the same events, which drive
 * GraphQL subscriptions and the REST sockets. Topics (CONTRIBUTING.md): `transcription:<transcriptionId>` (job
 * frames: the events socket and `transcriptionEvents`), `recording:<recordingId>` (a live recording's control: pause,
 * resume, stop, demote, read by the process holding its publisher socket; and its `recording.flushed` answer to a
 * pause, read by the gateway whose `POST .../pause` waits for it), `recording:<recordingId>:log` (every
 * durable frame of a recording: the subscribe sockets), `recording:<recordingId>:audio` (live audio while someone
 * listens), `broadcast:<broadcastId>` (`recording.started`/`recording.state` of the recordings feeding it: the
 * broadcast's events socket), `gateway:account:<accountId>` (`accountEvents`), `gateway:stream-pulls` (a stream recording
 * started: the processes running stream pulls sweep at once); payloads
 * are the JSON frames the sockets send. A topic is added with its first reader, never ahead of it.
 * Channels carry REDIS_PREFIX so deployments (and test files) sharing one Redis never hear each other.
 */
import { Redis } from 'ioredis';
import { reportOutagesOnce } from './redis-client.js';
import { createPubSub } from 'graphql-yoga';
import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';

export type Topic = `transcription:${string}` | `recording:${string}` | `broadcast:${string}` | `gateway:${string}`;
export type Frame = Record<string, unknown> & { type: string };

export interface PubSub {
  publish(topic: Topic, frame: Frame): void;
  /** Frames published on `topic` from now on (in this or any other process); `return()` the iterator to leave. */
  subscribe(topic: Topic): AsyncIterableIterator<Frame>;
  close(): Promise<void>;
}

export function createRedisPubSub(options: {
  redisUrl: string;
  prefix: string;
  onOutage?: (error: Error, name: string) => void;
  onRecovered?: (name: string, outageS: number) => void;
}): PubSub {
  // Frames wait out an outage in the offline queue (maxRetriesPerRequest null) and subscriptions come back with the
  // connection: what a subscriber missed meanwhile, the durable log has (src/listeners/fanout.ts reads it).
  const publishClient = new Redis(options.redisUrl, { lazyConnect: false, maxRetriesPerRequest: null });
  const subscribeClient = new Redis(options.redisUrl, { lazyConnect: false, maxRetriesPerRequest: null });
  reportOutagesOnce(publishClient, 'pub/sub publisher', options.onOutage, options.onRecovered);
  reportOutagesOnce(subscribeClient, 'pub/sub subscriber', options.onOutage, options.onRecovered);
  const eventTarget = createRedisEventTarget<CustomEvent>({ publishClient, subscribeClient });
  const inner = createPubSub<Record<string, [Frame]>>({ eventTarget });
  const channel = (topic: Topic) => `${options.prefix}${topic}`;
  return {
    publish: (topic, frame) => inner.publish(channel(topic), frame),
    subscribe: (topic) => inner.subscribe(channel(topic)) as unknown as AsyncIterableIterator<Frame>,
    async close() {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}
