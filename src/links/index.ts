/**
 * Links: fetching a URL someone gave us (a file job's link, a pulled stream, a broadcast's audio source) without
 * reaching what it must not (SSRF: address policy, redirects checked hop by hop, sizes and times bounded), and
 * probing what a link is (a file, a live stream, a page with media on it). Used by transcriptions, recordings and
 * broadcasts alike; it imports only src/core.
 */
export { refusedAddressReason, refusedHostNameReason } from './address-policy.js';
export {
  LinkError,
  fetchLinkToFile,
  linkFetchPolicyOf,
  openLink,
  parseLinkUrl,
  type FetchProgress,
  type FetchedLink,
  type LinkFetchPolicy,
  type LinkProblem,
  type OpenLinkOptions,
  type OpenedLink,
} from './safe-fetch.js';
export { findMediaOnPage, probeLink, sniffMedia, type ProbeRecord } from './probe.js';
