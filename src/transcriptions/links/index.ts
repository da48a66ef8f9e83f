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
